// etcd backups and restore with the control-plane tools as nodes fetch them, against a real etcd: the
// leader's snapshot is saved, verified and uploaded (to a stand-in for `aws s3 cp`), and a fresh data
// directory restored from it serves the keys written before.
import { expect } from "chai";
import { requireBinary } from "../kubernetes/binaries";
import { spawnSync } from "child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "fs";
import { hostname, tmpdir } from "os";
import { join } from "path";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { LATEST_SNAPSHOT_KEY } from "../../components/controlPlane/backupBucket";
import {
  etcdToolsDir,
  EtcdMember,
  etcdctl,
  newMember,
  startCluster,
  startMember,
  stopAll,
  waitHealthy,
} from "./realEtcd";
import { itFailsOnEtcd36 } from "./pendingOnProvenEngines";

/** S3 as the CLI uses it here: `s3 cp FILE s3://BUCKET/KEY` stores the file under STUB_S3/BUCKET/KEY. */
const AWS_STUB = `case "$1 $2" in
"s3 cp") for a in "$@"; do case "$a" in s3://*) dest=\${a#s3://};; -*|s3|cp|us-east-1) ;; *) src=$a;; esac; done
  mkdir -p "$STUB_S3/$(dirname "$dest")"; cp "$src" "$STUB_S3/$dest";;
*) exit 1;;
esac`;

/** The control-plane tools' environment in a scratch directory: its bin/ (the aws stand-in) first on PATH. */
const toolsEnv = (dir: string) => ({
  ...process.env,
  PATH: `${join(dir, "bin")}:${process.env.PATH}`,
  REGION: "us-east-1",
  BACKUP_BUCKET: "etcd-backups-test",
  STUB_S3: join(dir, "s3"),
  ETCD_TOOLS_DIR: etcdToolsDir(),
});

describe("etcd backup and restore against a real etcd", function () {
  this.timeout(120000);
  let members: EtcdMember[] = [];
  let dir: string;
  let tools: string;

  before(function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
    dir = mkdtempSync(join(tmpdir(), "etcd-backup-"));
    tools = join(dir, "control-plane-tools");
    writeFileSync(tools, renderControlPlaneTools());
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/aws"), `#!/bin/bash\n${AWS_STUB}\n`);
    chmodSync(join(dir, "bin/aws"), 0o755);
  });
  afterEach(async () => stopAll(members));

  function runTools(env: Record<string, string>, ...args: string[]) {
    const r = spawnSync("bash", [tools, ...args], {
      encoding: "utf8",
      env: {
        ...toolsEnv(dir),
        ETCDCTL_CACERT: "",
        ETCDCTL_CERT: "",
        ETCDCTL_KEY: "",
        ...env,
      },
    });
    return { status: r.status, out: r.stdout, err: r.stderr };
  }

  /** The member that leads, from etcd itself. */
  function leader(): EtcdMember {
    for (const m of members) {
      const r = etcdctl(m.clientUrl, "endpoint", "status", "-w", "simple");
      if (r.out.split(", ")[4] === "true") return m;
    }
    throw new Error("no leader");
  }

  itFailsOnEtcd36(
    "the leader uploads a verified snapshot; a fresh data directory restored from it holds the keys",
    async () => {
      members = (await startCluster(3)).members;
      for (let i = 0; i < 20; i++)
        expect(etcdctl(members[0].clientUrl, "put", `key-${i}`, `value-${i}`).status).to.equal(0);
      const lead = leader();
      const follower = members.find((m) => m !== lead)!;

      const skipped = runTools({ ETCD_LOCAL: follower.clientUrl }, "etcd_backup");
      expect(skipped.status, skipped.err).to.equal(0);
      expect(existsSync(join(dir, "s3")), "a follower uploads nothing").to.equal(false);

      const backup = runTools({ ETCD_LOCAL: lead.clientUrl }, "etcd_backup");
      expect(backup.status, backup.err).to.equal(0);
      const uploaded = readdirSync(join(dir, "s3/etcd-backups-test/etcd"));
      expect(uploaded).to.have.length(1);
      expect(uploaded[0]).to.match(/^\d{8}T\d{6}Z\.db$/);
      // The same snapshot under the fixed key, whose current version the bucket keeps whatever its age.
      expect(readFileSync(join(dir, "s3/etcd-backups-test", LATEST_SNAPSHOT_KEY))).to.deep.equal(
        readFileSync(join(dir, "s3/etcd-backups-test/etcd", uploaded[0])),
      );
      await stopAll(members);

      // Every member gone: restore the uploaded snapshot into a fresh data directory, as a one-member cluster.
      const restored = await newMember(hostname().split(".")[0], join(dir, "restored"));
      const snapshot = join(dir, "s3/etcd-backups-test/etcd", uploaded[0]);
      const r = runTools({}, "etcd_snapshot_restore", snapshot, restored.dataDir, restored.peerUrl);
      expect(r.status, r.err).to.equal(0);
      members = [restored];
      startMember(restored, `${restored.name}=${restored.peerUrl}`, "new");
      await waitHealthy([restored]);
      expect(etcdctl(restored.clientUrl, "get", "key-7", "--print-value-only").out).to.equal("value-7\n");
      const keys = etcdctl(restored.clientUrl, "get", "--prefix", "--keys-only", "key-").out.split("\n");
      expect(keys.filter((k) => k.startsWith("key-"))).to.have.length(20);
      expect(etcdctl(restored.clientUrl, "member", "list").out.trim().split("\n")).to.have.length(1);
    },
  );

  it("refuses a snapshot that does not verify, and a snapshot of a member that does not answer", async () => {
    members = (await startCluster(1)).members;
    const file = join(dir, "broken.db");
    const saved = runTools({}, "etcd_snapshot_save", members[0].clientUrl, file);
    expect(saved.status, saved.err).to.equal(0);
    writeFileSync(file, "not a snapshot");
    const status = spawnSync("bash", ["-c", `ETCDCTL_API=3 etcdctl snapshot status ${file}`]);
    expect(status.status, "etcdctl itself rejects it").not.to.equal(0);
    const restore = runTools({}, "etcd_snapshot_restore", file, join(dir, "never"), "http://127.0.0.1:1");
    expect(restore.status).not.to.equal(0);
    await stopAll(members);
    const down = runTools({}, "etcd_snapshot_save", members[0].clientUrl, join(dir, "down.db"));
    expect(down.status).not.to.equal(0);
  });
});

describe("the newest etcd snapshot in the bucket (a stand-in for the AWS CLI's paged listing)", function () {
  this.timeout(60000);
  let dir: string;
  let tools: string;
  const snapshots = (dir: string) => join(dir, "s3/etcd-backups-test/etcd");

  before(function () {
    const jmespath = spawnSync("python3", ["-c", "import jmespath"]);
    if (jmespath.status !== 0) {
      const message = "python3 with jmespath not installed (Debian package python3-jmespath)";
      if (process.env.CI === "true") throw new Error(message);
      console.warn(`  skipped: ${message}`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "etcd-newest-"));
    tools = join(dir, "control-plane-tools");
    writeFileSync(tools, renderControlPlaneTools());
    mkdirSync(join(dir, "bin"));
    const standIn = join(__dirname, "awsListObjects.py");
    writeFileSync(join(dir, "bin/aws"), `#!/bin/bash\nexec python3 ${JSON.stringify(standIn)} "$@"\n`);
    chmodSync(join(dir, "bin/aws"), 0o755);
  });

  function newest(script = "etcd_newest_snapshot") {
    const r = spawnSync("bash", [tools, script], {
      encoding: "utf8",
      env: {
        ...toolsEnv(dir),
      },
    });
    expect(r.status, r.stderr).to.equal(0);
    return r.stdout;
  }

  /** `count` snapshots named by time, an hour apart, the last one newest. */
  function upload(count: number, from = Date.UTC(2026, 0, 1)) {
    mkdirSync(snapshots(dir), { recursive: true });
    for (let i = 0; i < count; i++) {
      const at = new Date(from + i * 3600_000);
      const file = join(snapshots(dir), `${at.toISOString().replace(/[-:]|\.\d+/g, "")}.db`);
      writeFileSync(file, "snapshot");
      utimesSync(file, at, at);
    }
  }

  it("is nothing in an empty bucket", () => {
    expect(newest()).to.equal("");
    // The fixed key the node writes is the one the bucket's lifecycle rules keep.
    expect(newest("etcd_latest_key")).to.equal(`${LATEST_SNAPSHOT_KEY}\n`);
  });

  it("is the one most recently written over more than one page (1,001 snapshots)", () => {
    upload(1001);
    expect(newest()).to.equal("etcd/20260211T160000Z.db\n");
    // The old selection: the query's result per page, so one key for each page.
    const old = spawnSync(
      "aws",
      ["s3api", "list-objects-v2", "--bucket", "etcd-backups-test", "--prefix", "etcd/"].concat([
        "--query",
        "sort_by(Contents, &Key)[-1].Key",
        "--output",
        "text",
      ]),
      {
        encoding: "utf8",
        env: { ...process.env, PATH: `${join(dir, "bin")}:${process.env.PATH}`, STUB_S3: join(dir, "s3") },
      },
    );
    expect(old.stdout.trim().split("\n")).to.deep.equal(["etcd/20260211T150000Z.db", "etcd/20260211T160000Z.db"]);
  });

  it("is the fixed key's snapshot once every snapshot named by time has expired (an outage past the retention)", () => {
    upload(1001);
    const latest = join(dir, "s3/etcd-backups-test", LATEST_SNAPSHOT_KEY);
    mkdirSync(join(latest, ".."), { recursive: true });
    writeFileSync(latest, "snapshot");
    const at = new Date(Date.UTC(2026, 1, 11, 16));
    utimesSync(latest, at, at);
    rmSync(snapshots(dir), { recursive: true });
    expect(newest()).to.equal(`${LATEST_SNAPSHOT_KEY}\n`);
    // A newer snapshot named by time (the fixed key's upload failed after it): that one.
    upload(2, Date.UTC(2026, 1, 11, 17));
    expect(newest()).to.equal("etcd/20260211T180000Z.db\n");
    // A newer fixed key than the 1,001 snapshots of two pages: the fixed key.
    rmSync(snapshots(dir), { recursive: true });
    upload(1001);
    const later = new Date(Date.UTC(2026, 1, 11, 16, 30));
    utimesSync(latest, later, later);
    expect(newest()).to.equal(`${LATEST_SNAPSHOT_KEY}\n`);
    rmSync(latest);
    expect(newest()).to.equal("etcd/20260211T160000Z.db\n");
  });

  it("goes by the time written, not by the name", () => {
    // A snapshot whose name sorts last but that was written before the others (a node with a skewed clock).
    const file = join(snapshots(dir), "99990101T000000Z.db");
    writeFileSync(file, "snapshot");
    utimesSync(file, new Date(Date.UTC(2025, 0, 1)), new Date(Date.UTC(2025, 0, 1)));
    expect(newest()).to.equal("etcd/20260211T160000Z.db\n");
  });
});

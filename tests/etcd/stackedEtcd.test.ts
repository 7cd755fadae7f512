// The control plane's etcd as kubeadm stacks it, against real etcd 3.6 and kubeadm's own certificates, both
// built from source: three members on loopback addresses of their own (each an "instance"), TLS clients as
// kubeadm configures them. The bootstrap's own functions (the rendered control-plane script, run as its
// units run it) remove departed members before a join and take the leader's snapshots; the snapshot is
// restored with the runbook's command (docs/operations.md) and nothing committed is lost.
import { expect } from "chai";
import { ChildProcess, spawn, spawnSync } from "child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { stringify } from "yaml";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { renderBootstrapScript } from "../../components/nodes/userData";
import { specWith } from "../fixtures";
import { binaryPath, requireBinary } from "../kubernetes/binaries";
import { waitFor } from "../waitFor";
import { startAws } from "../standins/aws";
import { LATEST_SNAPSHOT_KEY, SNAPSHOT_METRIC } from "../../components/nodes/controlPlaneNames";

/**
 * The directory of etcdctl and etcdutl, for ETCD_TOOLS_DIR: on a node the bootstrap copies them out of the
 * etcd image kubeadm runs; here, the same version built from source.
 */
const etcdToolsDir = () => dirname(binaryPath("etcdctl"));

const ADDRESSES = ["127.0.0.11", "127.0.0.12", "127.0.0.13"];
/** The address of the node that joins (an instance of its own). */
const JOINING = "127.0.0.14";

interface Member {
  name: string;
  address: string;
  process?: ChildProcess;
}

/** Each address's EC2 instance. */
const instanceAt = (address: string) => `i-0${address.replace(/\./g, "")}`;

describe("stacked etcd as kubeadm keeps it, on etcd 3.6 and kubeadm's certificates built from source", function () {
  this.timeout(300_000);
  let dir: string;
  let root: string;
  let script: string;
  let aws: Awaited<ReturnType<typeof startAws>>;
  const members: Member[] = ADDRESSES.map((address, i) => ({ name: `m${i + 1}`, address }));
  const pki = () => join(root, "etc/kubernetes/pki/etcd");

  const etcdctlFlags = (endpoints: string) => [
    `--endpoints=${endpoints}`,
    `--cacert=${pki()}/ca.crt`,
    `--cert=${pki()}/healthcheck-client.crt`,
    `--key=${pki()}/healthcheck-client.key`,
    "--command-timeout=5s",
  ];
  const etcdctl = (endpoints: string, ...args: string[]) =>
    spawnSync(join(etcdToolsDir(), "etcdctl"), [...etcdctlFlags(endpoints), ...args], { encoding: "utf8" });
  const clientUrl = (m: Member) => `https://${m.address}:2379`;
  const all = () => members.map(clientUrl).join(",");

  function start(
    m: Member,
    cluster: string,
    state: "new" | "existing",
    dataDir = join(dir, m.name),
    extra: string[] = [],
  ) {
    m.process = spawn(
      binaryPath("etcd"),
      [
        `--name=${m.name}`,
        `--data-dir=${dataDir}`,
        `--listen-peer-urls=http://${m.address}:2380`,
        `--initial-advertise-peer-urls=http://${m.address}:2380`,
        `--listen-client-urls=${clientUrl(m)}`,
        `--advertise-client-urls=${clientUrl(m)}`,
        `--initial-cluster=${cluster}`,
        `--initial-cluster-state=${state}`,
        "--client-cert-auth",
        `--trusted-ca-file=${pki()}/ca.crt`,
        `--cert-file=${pki()}/server.crt`,
        `--key-file=${pki()}/server.key`,
        "--log-level=error",
        ...extra,
      ],
      { stdio: "ignore" },
    );
  }
  async function stop(m: Member) {
    const p = m.process;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise((resolve) => {
      p.once("exit", resolve);
      p.kill("SIGTERM");
    });
  }

  /**
   * A bootstrap function of the control-plane script, as the units run it: `cilium-cluster-bootstrap
   * FUNCTION`. Asynchronous: the metadata service answers from this process.
   */
  function bootstrap(fn: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
    const child = spawn("bash", [script, ...fn], {
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        ...process.env,
        PATH: `${join(dir, "bin")}:${process.env.PATH}`,
        BOOTSTRAP_ROOT: root,
        BOOTSTRAP_RETRY_DELAY: "0",
        ETCD_TOOLS_DIR: etcdToolsDir(),
        IMDS_ENDPOINT: aws.imdsUrl(instanceAt(JOINING)),
        ...env,
      },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr })));
  }
  /**
   * etcd_remove_members MODE, run by the joining node, with these control-plane instances running (and those
   * PENDING launching).
   */
  async function removeMembers(running: string[], mode: "departed" | "self" = "departed", pending: string[] = []) {
    for (const instance of aws.instances.values())
      instance.state = running.includes(instance.privateIp)
        ? "running"
        : pending.includes(instance.privateIp)
          ? "pending"
          : "terminated";
    return bootstrap(["etcd_remove_members", mode], {});
  }
  /** A learner added as kubeadm join adds one, at `address`, never started (the join went no further). */
  const addLearner = (name: string, address: string) =>
    etcdctl(clientUrl(members[0]), "member", "add", name, "--learner", `--peer-urls=http://${address}:2380`);
  const peers = () =>
    (
      JSON.parse(etcdctl(clientUrl(members[0]), "member", "list", "-w", "json").stdout).members as {
        peerURLs: string[];
      }[]
    )
      .map((m) => m.peerURLs[0])
      .sort();
  /** kubeadm's check-etcd before a control-plane join: every member's client URL answers Status. */
  const everyMemberAnswers = () => etcdctl(clientUrl(members[0]), "endpoint", "status", "--cluster").status === 0;

  before(async function () {
    for (const b of ["etcd", "etcdctl", "etcdutl", "kubeadm"] as const) requireBinary(this, b);
    dir = mkdtempSync(join(tmpdir(), "stacked-etcd-"));
    root = join(dir, "root");
    // kubeadm's certs phases issue the etcd CA, the members' serving certificate and the health-check client's.
    const config = join(dir, "kubeadm.yaml");
    writeFileSync(
      config,
      [
        {
          apiVersion: "kubeadm.k8s.io/v1beta4",
          kind: "InitConfiguration",
          localAPIEndpoint: { advertiseAddress: "192.0.2.10" },
        },
        {
          apiVersion: "kubeadm.k8s.io/v1beta4",
          kind: "ClusterConfiguration",
          kubernetesVersion: "v1.35.4",
          certificatesDir: join(root, "etc/kubernetes/pki"),
          etcd: { local: { serverCertSANs: ADDRESSES } },
        },
      ]
        .map((d) => stringify(d))
        .join("---\n"),
    );
    for (const phase of ["etcd-ca", "etcd-server", "etcd-healthcheck-client"]) {
      const r = spawnSync(binaryPath("kubeadm"), ["init", "phase", "certs", phase, "--config", config], {
        encoding: "utf8",
      });
      expect(r.status, r.stderr).to.equal(0);
    }
    // The leader waits one minute before it removes a member that stopped answering at a running instance.
    const spec = specWith({ controlPlane: { count: 3, etcdMemberUnhealthyMinutes: 1 } });
    const group = instanceGroups(spec).find((g) => g.role === "control-plane")!;
    script = join(dir, "cilium-cluster-bootstrap");
    writeFileSync(
      script,
      renderBootstrapScript(
        bootstrapConfig(
          spec,
          group,
          { internal: "api.internal.test", public: "api.test", caParameter: "/cluster-ca" },
          {
            initRecord: "/record",
            restoreRequest: "/restore",
            backupBucket: "b",
            encryptionKeys: "/k",
            sharedPki: "/pki/",
            adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
          },
        ),
      ),
    );
    mkdirSync(join(dir, "bin"));
    // The cluster's control-plane instances in EC2, the joining node's among them; its `aws` is the fake's CLI.
    aws = await startAws();
    for (const address of [...ADDRESSES, JOINING])
      aws.launch(
        {
          id: instanceAt(address),
          privateIp: address,
          zone: "us-east-1a",
          instanceType: "t3.large",
          mac: "0a:00:00:00:00:00",
          tags: { [CLUSTER_TAG]: spec.clusterName, [ROLE_TAGS["control-plane"]]: "1" },
        },
        { name: `control-plane-${address}`, hooks: [] },
      );
    writeFileSync(join(dir, "bin/aws"), `#!/bin/bash\n${aws.cliScript(instanceAt(JOINING))}\n`);
    chmodSync(join(dir, "bin/aws"), 0o755);
    const cluster = members.map((m) => `${m.name}=http://${m.address}:2380`).join(",");
    for (const m of members) start(m, cluster, "new");
    await waitFor("three healthy members", () => etcdctl(all(), "endpoint", "health").status === 0);
    // The write counter: every key written before each step must be there after it.
    for (let i = 0; i < 50; i++)
      expect(etcdctl(clientUrl(members[i % 3]), "put", `count/${i}`, `${i}`).status).to.equal(0);
  });
  after(async () => {
    await aws?.close();
    await Promise.all(members.map(stop));
  });

  const counted = (endpoint: string) =>
    etcdctl(endpoint, "get", "count/", "--prefix", "--keys-only").stdout.split("\n").filter(Boolean).length;

  it("two of three members rebooted (their root volumes keep /var/lib/etcd) come back with every committed write", async () => {
    await Promise.all([stop(members[1]), stop(members[2])]);
    // A write without quorum times out (it may still commit once the members are back: not counted).
    const lost = etcdctl(clientUrl(members[0]), "put", "uncounted", "x", "--command-timeout=2s");
    expect(lost.status, "no quorum with one of three").to.not.equal(0);
    // Its backup unit fails, uploading nothing: a member without a leader is no "not the leader" to skip.
    await waitFor(
      "the member to lose its leader",
      () => !/"leader"/.test(etcdctl(clientUrl(members[0]), "endpoint", "status", "-w", "json").stdout),
    );
    const backup = await bootstrap(["etcd_backup"], { ETCD_LOCAL: clientUrl(members[0]) });
    expect(backup.status, backup.stderr).to.not.equal(0);
    expect(aws.objects.size).to.equal(0);
    const cluster = members.map((m) => `${m.name}=http://${m.address}:2380`).join(",");
    for (const m of members.slice(1)) start(m, cluster, "existing");
    await waitFor("the members back", () => etcdctl(all(), "endpoint", "health").status === 0);
    for (const m of members) expect(counted(clientUrl(m)), m.name).to.equal(50);
    expect(etcdctl(clientUrl(members[2]), "put", "uncounted", "y").status, "quorum again").to.equal(0);
  });

  it("a member whose instance is gone blocks kubeadm's check-etcd until the joining node removes it; live members stay", async () => {
    await stop(members[2]);
    expect(everyMemberAnswers(), "check-etcd with a departed member").to.equal(false);
    // A member at a pending or running instance (a reboot) is kept, even while it does not answer.
    const kept = await removeMembers([ADDRESSES[0], ADDRESSES[1], ADDRESSES[2], JOINING]);
    expect(kept.status, kept.stderr).to.equal(0);
    expect(peers()).to.have.length(3);
    // So is one whose instance EC2 reports pending (a reboot's start, a launch).
    const pending = await removeMembers([ADDRESSES[0], ADDRESSES[1], JOINING], "departed", [ADDRESSES[2]]);
    expect(pending.status, pending.stderr).to.equal(0);
    expect(peers()).to.have.length(3);
    const removed = await removeMembers([ADDRESSES[0], ADDRESSES[1], JOINING]);
    expect(removed.status, removed.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
    expect(everyMemberAnswers(), "check-etcd once it left").to.equal(true);
    expect(counted(clientUrl(members[0]))).to.equal(50);
  });

  it("a learner leaked by an abandoned join blocks the next one (one learner at a time) until it is removed", async () => {
    expect(addLearner("abandoned", "127.0.0.15").status).to.equal(0);
    const blocked = addLearner("next", JOINING);
    expect(blocked.status).to.not.equal(0);
    expect(peers()).not.to.include(`http://${JOINING}:2380`);
    const removed = await removeMembers([ADDRESSES[0], ADDRESSES[1], JOINING]);
    expect(removed.status, removed.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
    const next = addLearner("next", JOINING);
    expect(next.status, next.stderr).to.equal(0);
    // This node's join stops half-way (its learner never started): before kubeadm reset wipes its data, the
    // node removes its own member, and finds it gone; the members of the other instances stay.
    const self = await removeMembers([ADDRESSES[0], ADDRESSES[1], JOINING], "self");
    expect(self.status, self.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
  });

  /** The client URL of the member that leads, among those running (waiting out an election). */
  async function leaderUrl(): Promise<string> {
    let found: string | undefined;
    await waitFor("a leader", () => {
      found = members
        .filter((m) => m.process?.exitCode === null && m.process.signalCode === null)
        .map(clientUrl)
        .find((url) => {
          const [status] = JSON.parse(etcdctl(url, "endpoint", "status", "-w", "json").stdout || "[{}]");
          return status?.Status && status.Status.leader === status.Status.header.member_id;
        });
      return found !== undefined;
    });
    return found!;
  }
  /** reconcile_etcd_members as the etcd-members timer runs it on MEMBER's node. */
  const reconcile = (member: string) => bootstrap(["reconcile_etcd_members"], { ETCD_LOCAL: member });
  /** m3 back as a voting member, its data dir new, as a replacement instance at its address would join. */
  async function rejoinThird(data: string) {
    const m3 = members[2];
    expect(
      etcdctl(clientUrl(members[0]), "member", "add", m3.name, `--peer-urls=http://${m3.address}:2380`).status,
    ).to.equal(0);
    start(m3, members.map((m) => `${m.name}=http://${m.address}:2380`).join(","), "existing", join(dir, data));
    await waitFor("three healthy members", () => etcdctl(all(), "endpoint", "health").status === 0);
  }
  const unhealthySince = () => join(root, "run/cilium-cluster/etcd-unhealthy");

  it("the leader removes a voter whose etcd stopped answering at a running instance after the bound, and has Auto Scaling replace the instance", async () => {
    await rejoinThird("m3-dead");
    await stop(members[2]);
    const m3 = instanceAt(members[2].address);
    for (const instance of aws.instances.values()) instance.state = "running";
    // Not the leader: it does nothing, not even ask EC2.
    const leader = await leaderUrl();
    const follower = members
      .slice(0, 2)
      .map(clientUrl)
      .find((url) => url !== leader)!;
    const calls = aws.calls.length;
    const idle = await reconcile(follower);
    expect(idle.status, idle.stderr).to.equal(0);
    expect(aws.calls.length - calls, "AWS calls by a follower").to.equal(0);
    // The leader's first look: not answering for less than the bound (a restart, a reboot): it stays.
    const first = await reconcile(leader);
    expect(first.status, first.stderr).to.equal(0);
    expect(peers(), first.stderr).to.have.length(3);
    expect(aws.instance(m3).health).to.equal(undefined);
    // The leader's record of when it first and last found it not answering, made older: a record whose last
    // look is long past (this node did not lead meanwhile) starts the bound again ...
    const [recorded] = readdirSync(unhealthySince());
    const now = () => Math.floor(Date.now() / 1000);
    writeFileSync(join(unhealthySince(), recorded), `${now() - 600} ${now() - 400}\n`);
    const stale = await reconcile(await leaderUrl());
    expect(stale.status, stale.stderr).to.equal(0);
    expect(peers(), "after a gap in its looks").to.have.length(3);
    // ... and a minute of looks removes it: the instance first marked unhealthy, so Auto Scaling replaces it,
    // then the member; the other instances untouched.
    writeFileSync(join(unhealthySince(), recorded), `${now() - 61} ${now() - 5}\n`);
    const second = await reconcile(await leaderUrl());
    expect(second.status, second.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
    expect(
      [...aws.instances.values()].filter((i) => i.health).map((i) => [i.id, i.health]),
      "instances marked",
    ).to.deep.equal([[m3, "UNHEALTHY"]]);
    expect(readdirSync(unhealthySince()), "records left").to.deep.equal([]);
    expect(everyMemberAnswers(), "check-etcd once it left").to.equal(true);
    expect(counted(clientUrl(members[0]))).to.equal(50);
  });

  it("the leader removes a voter whose instance is gone at once, and keeps one that still answers", async () => {
    aws.instance(instanceAt(members[2].address)).health = undefined;
    await rejoinThird("m3-departed");
    const gone = instanceAt(members[2].address);
    // Gone from EC2 while its etcd answers (EC2's listing behind): kept.
    aws.instance(gone).state = "terminated";
    const kept = await reconcile(await leaderUrl());
    expect(kept.status, kept.stderr).to.equal(0);
    expect(peers()).to.have.length(3);
    // Its etcd gone too (the instance died before its termination hook ran): a dead voter, removed at once.
    await stop(members[2]);
    const marked = aws.calls.filter((c) => c.action === "autoscaling:SetInstanceHealth").length;
    const removed = await reconcile(await leaderUrl());
    expect(removed.status, removed.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
    expect(
      aws.calls.filter((c) => c.action === "autoscaling:SetInstanceHealth").length - marked,
      "instances marked",
    ).to.equal(0);
    expect(counted(clientUrl(members[0]))).to.equal(50);
    aws.instance(gone).state = "running";
  });

  it("the leader keeps a learner that does not answer (a join under way), and replaces no running instance's member while one is there", async () => {
    await rejoinThird("m3-behind-a-learner");
    const third = instanceAt(members[2].address);
    aws.instance(third).state = "running";
    // kubeadm's join adds its learner while every voter answers (check-etcd; etcd takes it once the rejoined
    // member has been connected a few seconds), then the third's etcd dies.
    await waitFor("the learner added", () => addLearner("joining", JOINING).status === 0);
    await stop(members[2]);
    const four = [...ADDRESSES, JOINING].map((a) => `http://${a}:2380`).sort();
    // The dead voter at a running instance, past the bound, and a learner that never answered: both kept.
    const first = await reconcile(await leaderUrl());
    const [recorded] = readdirSync(unhealthySince());
    const now = () => Math.floor(Date.now() / 1000);
    writeFileSync(join(unhealthySince(), recorded), `${now() - 61} ${now() - 5}\n`);
    const held = await reconcile(await leaderUrl());
    expect(held.status, held.stderr).to.equal(0);
    expect(peers(), `members while the learner joins: ${first.stderr}${held.stderr}`).to.deep.equal(four);
    expect(aws.instance(third).health, "the dead voter's instance").to.equal(undefined);
    // The join gone (its node removed its own learner): the dead voter's instance is replaced, its member removed.
    const list = JSON.parse(etcdctl(clientUrl(members[0]), "member", "list", "-w", "json", "--hex").stdout) as {
      members: { ID: string; peerURLs: string[] }[];
    };
    const learner = list.members.find((m) => m.peerURLs[0] === `http://${JOINING}:2380`)!;
    expect(etcdctl(clientUrl(members[0]), "member", "remove", learner.ID).status).to.equal(0);
    writeFileSync(join(unhealthySince(), recorded), `${now() - 61} ${now() - 5}\n`);
    const removed = await reconcile(await leaderUrl());
    expect(removed.status, removed.stderr).to.equal(0);
    expect(peers()).to.deep.equal(["http://127.0.0.11:2380", "http://127.0.0.12:2380"]);
    expect(aws.instance(third).health).to.equal("UNHEALTHY");
    aws.instance(third).health = undefined;
  });

  it("a snapshot etcdutl cannot read is never uploaded", async () => {
    // etcd's own etcdctl, but the file its snapshot wrote cut short (a disk that failed the write); etcdutl
    // is etcd's.
    const tools = join(dir, "tools-corrupt");
    mkdirSync(tools, { recursive: true });
    writeFileSync(
      join(tools, "etcdctl"),
      [
        "#!/bin/bash",
        `${JSON.stringify(join(etcdToolsDir(), "etcdctl"))} "$@" || exit`,
        'if [[ " $* " == *" snapshot save "* ]]; then truncate -s 8192 "${@: -1}"; fi',
      ].join("\n"),
    );
    chmodSync(join(tools, "etcdctl"), 0o755);
    symlinkSync(join(etcdToolsDir(), "etcdutl"), join(tools, "etcdutl"));
    const uploads = aws.calls.filter((c) => c.action === "s3:PutObject").length;
    const backup = await bootstrap(["etcd_backup"], { ETCD_LOCAL: await leaderUrl(), ETCD_TOOLS_DIR: tools });
    expect(backup.status, "the backup's status").to.not.equal(0);
    expect(aws.calls.filter((c) => c.action === "s3:PutObject").length - uploads, "snapshots uploaded").to.equal(0);
  });

  it("only the leader uploads a snapshot, and the runbook's restore serves every key written before", async () => {
    const ran = await Promise.all(
      members.slice(0, 2).map((m) => bootstrap(["etcd_backup"], { ETCD_LOCAL: clientUrl(m) })),
    );
    for (const r of ran) expect(r.status, r.stderr).to.equal(0);
    // One member leads and uploads a snapshot named by time, then the same under the fixed key; the other none.
    const uploads = aws.calls
      .filter((c) => c.action === "s3:PutObject")
      .map((c) => `${c.params.Bucket}/${c.params.Key}`);
    expect(uploads).to.have.length(2);
    expect(uploads[0]).to.match(/^b\/etcd\/\d{8}T\d{6}Z\.db$/);
    expect(uploads[1]).to.equal(`b/${LATEST_SNAPSHOT_KEY}`);
    // And counted once, for the backups' alarm (components/controlPlane/backupAlarm.ts).
    expect(aws.metrics).to.deep.equal([
      {
        namespace: `${SNAPSHOT_METRIC.namespacePrefix}/dev.k8s.local`,
        name: SNAPSHOT_METRIC.name,
        dimensions: { [SNAPSHOT_METRIC.dimension]: "dev.k8s.local" },
        value: 1,
      },
    ]);
    const snapshot = join(dir, "etcd.db");
    writeFileSync(snapshot, aws.objects.get(`b/${LATEST_SNAPSHOT_KEY}`)!);
    // All lost: the documented restore (docs/operations.md), one new member from the snapshot.
    await Promise.all(members.map(stop));
    const restored = join(dir, "restored");
    const r = spawnSync(
      join(etcdToolsDir(), "etcdutl"),
      [
        "snapshot",
        "restore",
        snapshot,
        `--data-dir=${restored}`,
        "--name=m1",
        "--initial-cluster=m1=http://127.0.0.11:2380",
        "--initial-advertise-peer-urls=http://127.0.0.11:2380",
        "--bump-revision=1000000000",
        "--mark-compacted",
      ],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).to.equal(0);
    start(members[0], "m1=http://127.0.0.11:2380", "new", restored);
    await waitFor("the restored member", () => etcdctl(clientUrl(members[0]), "endpoint", "health").status === 0);
    expect(counted(clientUrl(members[0]))).to.equal(50);
    const revision = JSON.parse(etcdctl(clientUrl(members[0]), "endpoint", "status", "-w", "json").stdout)[0].Status
      .header.revision;
    expect(revision).to.be.greaterThan(1_000_000_000);
  });
  it("a snapshot may take longer than etcd's command timeout: backups do not stop as the database grows", async () => {
    // The member that leads (after the restore above, its one member).
    const member = members.map(clientUrl).find((url) => {
      const [status] = JSON.parse(etcdctl(url, "endpoint", "status", "-w", "json").stdout || "[{}]");
      return status?.Status && status.Status.leader === status.Status.header.member_id;
    })!;
    // About 200 MB: one value of 1 MiB a key, through standard input (an argument is limited to 128 KiB).
    const value = Buffer.alloc(1 << 20, "x");
    for (let i = 0; i < 200; i++)
      expect(
        spawnSync(join(etcdToolsDir(), "etcdctl"), [...etcdctlFlags(member), "put", `big/${i}`], { input: value })
          .status,
      ).to.equal(0);
    // The time a snapshot of it takes here; the command timeout is then a third of it (the scaled-down
    // counterpart of 10 seconds against a 1.2 GB database), which status calls still fit in.
    const started = Date.now();
    expect(etcdctl(member, "snapshot", "save", join(dir, "timed.db"), "--command-timeout=120s").status).to.equal(0);
    const took = (Date.now() - started) / 1000;
    process.stdout.write(`      a snapshot of it took ${took}s; etcdctl's other calls get ${(took / 3).toFixed(3)}s\n`);
    const uploads = aws.calls.filter((c) => c.action === "s3:PutObject").length;
    const backup = await bootstrap(["etcd_backup"], {
      ETCD_LOCAL: member,
      ETCD_COMMAND_SECONDS: (took / 3).toFixed(3),
    });
    expect(backup.status, backup.stderr).to.equal(0);
    expect(aws.calls.filter((c) => c.action === "s3:PutObject").length - uploads, "snapshots uploaded").to.equal(2);
    const uploaded = join(dir, "uploaded.db");
    writeFileSync(uploaded, aws.objects.get(`b/${LATEST_SNAPSHOT_KEY}`)!);
    const status = spawnSync(join(etcdToolsDir(), "etcdutl"), ["snapshot", "status", uploaded, "-w", "json"], {
      encoding: "utf8",
    });
    expect(JSON.parse(status.stdout).totalSize, "the whole database").to.be.greaterThan(200 << 20);
  });
  it("a member left without quorum (two voters, one gone for good) is forced into a one-member cluster by the runbook, keeps every key, and takes a new member", async () => {
    // The restored member above (m1) and a second voter, as a one-node control plane mid-refresh has.
    const [m1, m2, m3] = members;
    const data = join(dir, "restored");
    expect(etcdctl(clientUrl(m1), "member", "add", m2.name, `--peer-urls=http://${m2.address}:2380`).status).to.equal(
      0,
    );
    start(m2, `m1=http://${m1.address}:2380,m2=http://${m2.address}:2380`, "existing", join(dir, "m2-second"));
    await waitFor(
      "two healthy members",
      () => etcdctl([m1, m2].map(clientUrl).join(","), "endpoint", "health").status === 0,
    );
    expect(etcdctl(clientUrl(m2), "put", "forced/before", "x").status).to.equal(0);
    // The second dies outright: no quorum, no write.
    await stop(m2);
    expect(etcdctl(clientUrl(m1), "put", "forced/lost", "x", "--command-timeout=2s").status, "no quorum").to.not.equal(
      0,
    );
    // The runbook: once with --force-new-cluster, then again without it.
    await stop(m1);
    start(m1, "", "existing", data, ["--force-new-cluster"]);
    await waitFor("the forced member", () => etcdctl(clientUrl(m1), "endpoint", "health").status === 0);
    await stop(m1);
    start(m1, "", "existing", data);
    await waitFor("the member without the flag", () => etcdctl(clientUrl(m1), "endpoint", "health").status === 0);
    expect(peers()).to.deep.equal([`http://${m1.address}:2380`]);
    expect(counted(clientUrl(m1)), "every counted key").to.equal(50);
    expect(etcdctl(clientUrl(m1), "get", "forced/before", "--print-value-only").stdout.trim()).to.equal("x");
    // A replacement joins it as a new member (kubeadm join adds it the same way).
    expect(etcdctl(clientUrl(m1), "member", "add", m3.name, `--peer-urls=http://${m3.address}:2380`).status).to.equal(
      0,
    );
    start(m3, `m1=http://${m1.address}:2380,m3=http://${m3.address}:2380`, "existing", join(dir, "m3-after-force"));
    await waitFor(
      "two healthy members again",
      () => etcdctl([m1, m3].map(clientUrl).join(","), "endpoint", "health").status === 0,
    );
    expect(counted(clientUrl(m3))).to.equal(50);
  });
});

// Stable member names against a real etcd: every member of a three-member cluster comes back at once on a
// new address, on its data directory (all instances replaced, volumes intact). Each etcd runs in its own
// user and mount namespace whose /etc/hosts is a test file bound over it, so the members' names resolve as
// the test says without touching the machine's /etc/hosts; moving a name is rewriting that file.
import { expect } from "chai";
import { spawn, spawnSync } from "child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "fs";
import type { Server } from "http";
import { startImds } from "./imds";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { requireBinary } from "../kubernetes/binaries";
import { ETCD, etcdToolsDir, EtcdMember, etcdArgs, etcdctl, freePortOn, stopAll } from "./realEtcd";

const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];
const memberName = (zone: string) => `etcd-${zone}.internal.dev.k8s.local`;
/** The bootstrap config's ETCD_MEMBERS. */
const ETCD_MEMBERS = ZONES.map((z) => `${z}=${memberName(z)}`).join(" ");

/** Whether this kernel lets an unprivileged process have its own user and mount namespaces. */
function namespacesAllowed(): boolean {
  const r = spawnSync("unshare", ["--user", "--map-root-user", "--mount", "true"], { encoding: "utf8" });
  return r.status === 0;
}

describe("etcd members by name, against a real etcd: every member moves at once", function () {
  this.timeout(120000);
  let dir: string;
  let hosts: string;
  let peerPort: number;
  let clientPort: number;
  let members: EtcdMember[] = [];
  let imds: Server;
  const metadata: Record<string, string> = {};

  before(async function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
    if (!namespacesAllowed()) {
      process.stderr.write(`skipped "${this.test?.parent?.fullTitle()}": the kernel refuses user namespaces\n`);
      this.skip();
    }
    imds = await startImds(metadata);
  });
  after(() => imds?.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "etcd-names-"));
    hosts = join(dir, "hosts");
    const addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"];
    peerPort = await freePortOn(addresses);
    clientPort = await freePortOn(addresses);
    writeFileSync(join(dir, "control-plane-tools"), renderControlPlaneTools());
    chmodSync(join(dir, "control-plane-tools"), 0o755);
  });
  afterEach(async () => stopAll(members));

  /** /etc/hosts as the members see it: each zone's name at the address given. */
  const pointNames = (addresses: string[]) =>
    writeFileSync(hosts, ZONES.map((z, i) => `${addresses[i]} ${memberName(z)}\n`).join(""));

  /** Starts member i of the zones on ADDRESS, in its own namespace with the test's /etc/hosts. */
  function start(i: number, address: string, initialCluster: string): EtcdMember {
    const m: EtcdMember = {
      name: `m${i + 1}`,
      peerUrl: `http://${address}:${peerPort}`,
      clientUrl: `http://${address}:${clientPort}`,
      dataDir: join(dir, `m${i + 1}`),
    };
    const args = etcdArgs(m, initialCluster, "new");
    m.process = spawn(
      "unshare",
      [
        "--user",
        "--map-root-user",
        "--mount",
        "bash",
        "-c",
        'mount --bind "$0" /etc/hosts && exec "$ETCD" "$@"',
        hosts,
        ...args,
      ],
      { stdio: "ignore", env: { ...process.env, ETCD } },
    );
    return m;
  }

  /** The three members at ADDRESSES, as kubeadm starts them: each at its address. */
  function startAt(addresses: string[]): EtcdMember[] {
    const initial = addresses.map((a, i) => `m${i + 1}=http://${a}:${peerPort}`).join(",");
    members = addresses.map((a, i) => start(i, a, initial));
    return members;
  }

  async function healthyWithin(ms: number, which: EtcdMember[]): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (which.every((m) => etcdctl(m.clientUrl, "endpoint", "health").status === 0)) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  }

  const peerUrls = (m: EtcdMember) =>
    etcdctl(m.clientUrl, "member", "list", "-w", "simple")
      .out.trim()
      .split("\n")
      .map((l) => l.split(", ")[3])
      .sort();

  /**
   * Runs the tools bundle's FUNCTION as member i's node runs it (its zone, address and local member). Not
   * spawnSync: the metadata service answers from this process.
   */
  function onNode(i: number, m: EtcdMember, fn: string): Promise<{ status: number | null; stderr: string }> {
    Object.assign(metadata, { "placement/availability-zone": ZONES[i], "local-ipv4": m.clientUrl.split(/[/:]/)[3] });
    const child = spawn("bash", [join(dir, "control-plane-tools"), fn], {
      env: {
        ...process.env,
        IMDS_ENDPOINT: `http://127.0.0.1:${(imds.address() as AddressInfo).port}`,
        ETCD_LOCAL: m.clientUrl,
        ETCD_ENDPOINTS: members.map((x) => x.clientUrl).join(","),
        ETCD_MEMBERS,
        ETCD_PEER_SCHEME: "http",
        ETCD_PEER_PORT: String(peerPort),
        // The test's members speak plain HTTP: no certificates.
        ETCD_PEER_CERT: "",
        ETCDCTL_CACERT: "",
        ETCDCTL_CERT: "",
        ETCDCTL_KEY: "",
        ETCD_TOOLS_DIR: etcdToolsDir(),
      },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr })));
  }

  /** Stops every member and starts each again on its data directory at its new address. */
  async function moveAll(to: string[]): Promise<EtcdMember[]> {
    await stopAll(members);
    // --initial-cluster is ignored: each member starts on its data directory.
    const initial = to.map((a, i) => `m${i + 1}=http://${a}:${peerPort}`).join(",");
    const moved = to.map((a, i) => start(i, a, initial));
    members = moved;
    return moved;
  }

  it("at IP peer URLs (the old way) the cluster never finds itself again", async () => {
    pointNames(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    const before = startAt(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    expect(await healthyWithin(30000, before)).to.equal(true);
    expect(etcdctl(before[0].clientUrl, "put", "kept", "yes").status).to.equal(0);
    const moved = await moveAll(["127.0.0.5", "127.0.0.6", "127.0.0.7"]);
    // The stored peer URLs are the old addresses: no member reaches another, no leader, no quorum.
    expect(await healthyWithin(8000, [moved[0]])).to.equal(false);
    expect(etcdctl(moved[0].clientUrl, "get", "kept").status).not.to.equal(0);
  });

  it("at their names, settled by each node, the members find each other and keep their keys", async () => {
    pointNames(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    const before = startAt(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    expect(await healthyWithin(30000, before)).to.equal(true);
    for (const [i, m] of before.entries()) {
      const r = await onNode(i, m, "etcd_member_settle");
      expect(r.status, r.stderr).to.equal(0);
    }
    const named = ZONES.map((z) => `http://${memberName(z)}:${peerPort}`).sort();
    expect(peerUrls(before[0])).to.deep.equal(named);
    expect(await healthyWithin(10000, before)).to.equal(true);
    expect(etcdctl(before[0].clientUrl, "put", "kept", "yes").status).to.equal(0);
    // Every instance replaced at once: each replacement points its name at itself, then etcd starts.
    pointNames(["127.0.0.5", "127.0.0.6", "127.0.0.7"]);
    const moved = await moveAll(["127.0.0.5", "127.0.0.6", "127.0.0.7"]);
    expect(await healthyWithin(30000, moved)).to.equal(true);
    expect(etcdctl(moved[2].clientUrl, "get", "kept", "--print-value-only").out).to.equal("yes\n");
    expect(peerUrls(moved[1])).to.deep.equal(named);
    // Settled again on the new instances, nothing changes: the peer URLs are the names already.
    const again = await onNode(1, moved[1], "etcd_member_settle");
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stderr).not.to.contain("moves");
  });
});

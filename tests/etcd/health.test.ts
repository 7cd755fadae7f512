// The gate of a control-plane node's launch hook (bootstrap/etcd-health.sh in the control-plane tools, as
// nodes fetch them) against a real three-member etcd on loopback: etcd must be healthy with this node's
// member in it, every member answering.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { requireDebianTool } from "../debianTools";
import {
  EtcdMember,
  debianEtcdToolsDir,
  etcdctl,
  initialCluster,
  newMember,
  startCluster,
  startMember,
  stopAll,
  stopMember,
  waitHealthy,
} from "./realEtcd";

describe("the control plane's launch-hook gate against a real etcd", function () {
  this.timeout(120000);
  let all: EtcdMember[] = [];
  let cluster: { dir: string; members: EtcdMember[] };
  let tools: string;

  before(function () {
    requireDebianTool(this, "etcd", "etcd-server");
    requireDebianTool(this, "etcdctl", "etcd-client");
    tools = join(mkdtempSync(join(tmpdir(), "etcd-health-")), "control-plane-tools");
    writeFileSync(tools, renderControlPlaneTools());
  });
  beforeEach(async () => {
    cluster = await startCluster(3);
    all = [...cluster.members];
  });
  afterEach(async () => stopAll(all));

  const endpoints = () => cluster.members.map((m) => m.clientUrl).join(",");

  /** The gate as this node runs it: its own member at ETCD_LOCAL, the cluster through ETCD_ENDPOINTS. */
  function gate(local: EtcdMember, tries = 2) {
    const r = spawnSync("bash", [tools, "etcd_await_ready"], {
      encoding: "utf8",
      env: {
        ...process.env,
        ETCD_ENDPOINTS: endpoints(),
        ETCD_LOCAL: local.clientUrl,
        ETCDCTL_CACERT: "",
        ETCDCTL_CERT: "",
        ETCDCTL_KEY: "",
        ETCD_READY_TRIES: String(tries),
        ETCD_READY_INTERVAL: "0",
        ETCD_TOOLS_DIR: debianEtcdToolsDir(),
      },
    });
    return { status: r.status, err: r.stderr };
  }

  /** `member add`, again while etcd refuses changes (it does until its members have been connected a few seconds). */
  async function addMember(...args: string[]): Promise<string> {
    let add = etcdctl(endpoints(), "member", "add", ...args);
    for (let i = 0; i < 50 && add.status !== 0; i++) {
      await new Promise((res) => setTimeout(res, 200));
      add = etcdctl(endpoints(), "member", "add", ...args);
    }
    expect(add.status, add.err).to.equal(0);
    return add.out.match(/Member (\w+) added/)![1];
  }

  /** Member IDs by name, from etcd itself. */
  function idOf(name: string): string {
    const r = etcdctl(cluster.members[0].clientUrl, "member", "list", "-w", "simple");
    const row = r.out.split("\n").find((l) => l.split(", ")[2] === name);
    if (!row) throw new Error(`no member ${name}`);
    return row.split(", ")[0];
  }

  it("passes on a healthy three-member cluster, for each member", () => {
    for (const m of cluster.members) {
      const r = gate(m);
      expect(r.status, r.err).to.equal(0);
      expect(r.err).to.contain(`etcd is healthy with member ${idOf(m.name)} in it`);
    }
  });

  it("fails while one member is stopped, though the other two keep quorum", async () => {
    await stopMember(cluster.members[2]);
    const r = gate(cluster.members[0]);
    expect(r.status).not.to.equal(0);
    expect(r.err).to.contain(`etcd members not healthy: ${idOf("m3")} (${cluster.members[2].peerUrl})`);
    expect(r.err).to.contain("etcd not healthy with this node's member after 2 checks");
    // The member back: the gate opens.
    startMember(cluster.members[2], initialCluster(cluster.members), "new");
    await waitHealthy(cluster.members);
    expect(gate(cluster.members[0]).status).to.equal(0);
  });

  it("fails while a member is added but not started, whether it is another node's or this node's", async () => {
    const added = await newMember("m4", cluster.dir);
    const id = await addMember("m4", `--peer-urls=${added.peerUrl}`);
    const other = gate(cluster.members[0]);
    expect(other.status).not.to.equal(0);
    expect(other.err).to.contain(`etcd members not healthy: ${id} (${added.peerUrl})`);
    const self = gate(added);
    expect(self.status).not.to.equal(0);
    expect(self.err).to.contain(`etcd does not answer at ${added.clientUrl}`);
    // Started: four healthy members, the gate opens on the new node.
    all.push(added);
    startMember(added, initialCluster([...cluster.members, added]), "existing");
    await waitHealthy([...cluster.members, added]);
    cluster.members.push(added);
    const started = gate(added, 10);
    expect(started.status, started.err).to.equal(0);
  });

  it("fails while this node's member is a learner, and passes once it is promoted", async () => {
    const learner = await newMember("m4", cluster.dir);
    const id = await addMember("m4", "--learner", `--peer-urls=${learner.peerUrl}`);
    all.push(learner);
    startMember(learner, initialCluster([...cluster.members, learner]), "existing");
    cluster.members.push(learner);
    // Started (it answers its status), but not a voting member.
    let r = gate(learner, 20);
    for (let i = 0; i < 20 && !r.err.includes("is a learner"); i++) r = gate(learner, 2);
    expect(r.status).not.to.equal(0);
    expect(r.err).to.contain(`etcd member ${id} (m4) is a learner: not yet a voting member`);
    let promoted = etcdctl(cluster.members[0].clientUrl, "member", "promote", id);
    for (let i = 0; i < 50 && promoted.status !== 0; i++) {
      // etcd promotes a learner only once it has caught up with the leader.
      await new Promise((res) => setTimeout(res, 200));
      promoted = etcdctl(cluster.members[0].clientUrl, "member", "promote", id);
    }
    expect(promoted.status, promoted.err).to.equal(0);
    const after = gate(learner, 10);
    expect(after.status, after.err).to.equal(0);
  });
});

// The gate of a control-plane node's launch hook (bootstrap/etcd-health.sh in the control-plane tools, as
// nodes fetch them) against a real three-member etcd on loopback: this node's member started, voting and
// healthy, and a quorum of the members healthy (not every member: a member whose zone is out stays listed).
import { expect } from "chai";
import { spawnSync } from "child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { requireBinary } from "../kubernetes/binaries";
import {
  EtcdMember,
  etcdToolsDir,
  etcdctl,
  initialCluster,
  newMember,
  startCluster,
  startMember,
  stopAll,
  stopMember,
  waitHealthy,
} from "./realEtcd";
import { itFailsOnEtcd36 } from "./pendingOnProvenEngines";

describe("the control plane's launch-hook gate against a real etcd", function () {
  this.timeout(120000);
  let all: EtcdMember[] = [];
  let cluster: { dir: string; members: EtcdMember[] };
  let tools: string;

  before(function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
    tools = join(mkdtempSync(join(tmpdir(), "etcd-health-")), "control-plane-tools");
    writeFileSync(tools, renderControlPlaneTools());
  });
  beforeEach(async () => {
    cluster = await startCluster(3);
    all = [...cluster.members];
  });
  afterEach(async () => stopAll(all));

  const endpoints = () => cluster.members.map((m) => m.clientUrl).join(",");

  /**
   * The gate as this node runs it: its own member at ETCD_LOCAL, the cluster through ETCD_ENDPOINTS, checking
   * for `seconds` (0: one check); `toolsDir` holds the etcdctl it runs (the built etcd 3.6's by default).
   */
  function gate(local: EtcdMember, seconds = 0, toolsDir = etcdToolsDir()) {
    const r = spawnSync("bash", [tools, "etcd_await_ready"], {
      encoding: "utf8",
      env: {
        ...process.env,
        ETCD_ENDPOINTS: endpoints(),
        ETCD_LOCAL: local.clientUrl,
        ETCDCTL_CACERT: "",
        ETCDCTL_CERT: "",
        ETCDCTL_KEY: "",
        ETCD_READY_SECONDS: String(seconds),
        ETCD_READY_INTERVAL: seconds ? "1" : "0",
        ETCD_TOOLS_DIR: toolsDir,
      },
    });
    return { status: r.status, err: r.stderr };
  }

  /** `member add`, again while etcd refuses changes (it does until its members have been connected a few seconds); its ID. */
  async function addMember(...args: string[]): Promise<string> {
    let add = etcdctl(endpoints(), "member", "add", ...args);
    for (let i = 0; i < 50 && add.status !== 0; i++) {
      await new Promise((res) => setTimeout(res, 200));
      add = etcdctl(endpoints(), "member", "add", ...args);
    }
    expect(add.status, add.err).to.equal(0);
    // Its ID from the membership, by peer URL (a member list is served locally: poll until it shows).
    const peer = args.find((a) => a.startsWith("--peer-urls="))!.slice("--peer-urls=".length);
    for (let i = 0; i < 50; i++) {
      const list = etcdctl(endpoints(), "member", "list", "-w", "simple").out.split("\n");
      const row = list.find((l) => l.split(", ")[3] === peer);
      if (row) return row.split(", ")[0];
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no member at ${peer} after it was added: ${add.out}`);
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
      expect(r.err).to.contain(`etcd is healthy with member ${idOf(m.name)} in it (3 of 3 members healthy)`);
    }
  });

  it("passes with one other member down while the other two keep quorum: a zone out does not hold replacements", async () => {
    await stopMember(cluster.members[2]);
    const r = gate(cluster.members[0]);
    expect(r.status, r.err).to.equal(0);
    expect(r.err).to.contain(`etcd members not healthy: ${idOf("m3")} (${cluster.members[2].peerUrl})`);
    expect(r.err).to.contain(`etcd is healthy with member ${idOf("m1")} in it (2 of 3 members healthy)`);
  });

  itFailsOnEtcd36("fails without quorum, for as long as it lasts, and passes once a majority is back", async () => {
    const [m1, m2, m3] = cluster.members;
    await Promise.all([stopMember(m2), stopMember(m3)]);
    const start = Date.now();
    const r = gate(m1, 3);
    expect(r.status).not.to.equal(0);
    expect(r.err).to.contain("etcd has no quorum: 0 of 3 members healthy");
    expect(r.err).to.contain("etcd not healthy with this node's member after 3 s");
    // Bounded by wall-clock time, not by a count of checks.
    expect(Date.now() - start).to.be.within(3000, 30000);
    startMember(m2, initialCluster(cluster.members), "new");
    await waitHealthy([m1, m2]);
    const back = gate(m1, 10);
    expect(back.status, back.err).to.equal(0);
    expect(back.err).to.contain("(2 of 3 members healthy)");
  });

  it("passes with another node's member added but not started, and fails for that node until it has started", async () => {
    const added = await newMember("m4", cluster.dir);
    const id = await addMember("m4", `--peer-urls=${added.peerUrl}`);
    const other = gate(cluster.members[0]);
    expect(other.status, other.err).to.equal(0);
    expect(other.err).to.contain(`etcd members not healthy: ${id} (${added.peerUrl})`);
    expect(other.err).to.contain("(3 of 4 members healthy)");
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

  /** A directory whose etcdctl runs the built one, logging each call, with `memberList` in place of `member list`. */
  function toolsWith(memberList: string): { dir: string; calls: () => string } {
    const dir = mkdtempSync(join(tmpdir(), "etcd-tools-"));
    mkdirSync(join(dir, "state"));
    const real = join(etcdToolsDir(), "etcdctl");
    writeFileSync(
      join(dir, "etcdctl"),
      `#!/bin/bash\necho "$*" >>"${dir}/state/calls"\ncase "$*" in\n*"member list"*) ${memberList};;\nesac\nexec "${real}" "$@"\n`,
    );
    chmodSync(join(dir, "etcdctl"), 0o755);
    return { dir, calls: () => readFileSync(join(dir, "state/calls"), "utf8") };
  }

  it("never passes having checked nobody: every member it lists is health-checked, from the one listing", () => {
    // Every listing after the first fails, as a listing does when the member asked goes away between two.
    const tools = toolsWith(
      `if [ -e "$(dirname "$0")/state/listed" ]; then echo "Error: context deadline exceeded" >&2; exit 1; fi; touch "$(dirname "$0")/state/listed"`,
    );
    const r = gate(cluster.members[0], 0, tools.dir);
    expect(r.status, r.err).to.equal(0);
    expect(r.err).to.contain("(3 of 3 members healthy)");
    const checks = tools
      .calls()
      .split("\n")
      .filter((l) => l.endsWith("endpoint health"));
    for (const m of cluster.members)
      expect(checks.some((l) => l.startsWith(`--endpoints=${m.clientUrl} `))).to.equal(true);
    expect(tools.calls().match(/member list/g)).to.have.length(1);
  });

  it("fails when etcd lists no members", () => {
    const tools = toolsWith("exit 0");
    const r = gate(cluster.members[0], 0, tools.dir);
    expect(r.status).not.to.equal(0);
    expect(r.err).to.contain("etcd does not list its members");
  });

  it("fails while this node's member is a learner, and passes once it is promoted", async () => {
    const learner = await newMember("m4", cluster.dir);
    const id = await addMember("m4", "--learner", `--peer-urls=${learner.peerUrl}`);
    all.push(learner);
    startMember(learner, initialCluster([...cluster.members, learner]), "existing");
    cluster.members.push(learner);
    // Started (it answers its status), but not a voting member.
    let r = gate(learner);
    for (let i = 0; i < 50 && !r.err.includes("is a learner"); i++) {
      await new Promise((res) => setTimeout(res, 200));
      r = gate(learner);
    }
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

// The control plane's etcd membership functions (bootstrap/etcd-members.sh, the text control-plane nodes
// install) against a real three-member etcd on loopback.
import { expect } from "chai";
import { requireBinary } from "../kubernetes/binaries";
import { spawnSync } from "child_process";
import { join } from "path";
import {
  EtcdMember,
  etcdctl,
  initialCluster,
  newMember,
  startCluster,
  startMember,
  stopAll,
  etcdToolsDir,
  stopMember,
  waitHealthy,
} from "./realEtcd";
import { itFailsOnEtcd36 } from "./pendingOnProvenEngines";

const MODULE_DIR = join(__dirname, "../../components/nodes/bootstrap");

/** Runs a function of etcd-members.sh (with lib.sh) against ENDPOINTS; status, stdout, stderr. */
function members(endpoints: string, fn: string, ...args: string[]) {
  const script = `set -euo pipefail; source ${MODULE_DIR}/lib.sh; source ${MODULE_DIR}/etcd-members.sh; ${fn} "$@"`;
  const r = spawnSync("bash", ["-c", script, "bash", ...args], {
    encoding: "utf8",
    // On a node etcdctl is on PATH; here, the version kubeadm deploys, built from source.
    env: { ...process.env, ETCD_ENDPOINTS: endpoints, PATH: `${etcdToolsDir()}:${process.env.PATH}` },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** Member IDs by peer URL, from etcd itself. */
function memberIds(endpoint: string): Record<string, string> {
  const r = etcdctl(endpoint, "member", "list", "-w", "simple");
  expect(r.status, r.err).to.equal(0);
  return Object.fromEntries(
    r.out
      .trim()
      .split("\n")
      .map((l) => l.split(", "))
      .map((f) => [f[3], f[0]]),
  );
}

describe("etcd membership against a real etcd", function () {
  this.timeout(120000);
  let all: EtcdMember[] = [];
  let cluster: { dir: string; members: EtcdMember[] };

  before(function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
  });
  beforeEach(async () => {
    cluster = await startCluster(3);
    all = [...cluster.members];
  });
  afterEach(async () => stopAll(all));

  const endpoints = () => cluster.members.map((m) => m.clientUrl).join(",");

  it("etcd_quorum is a majority", () => {
    const table: [number, number][] = [
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 3],
      [5, 3],
    ];
    for (const [n, q] of table) expect(members("", "etcd_quorum", String(n)).out, `${n}`).to.equal(`${q}\n`);
  });

  it("lists members with their peer and client URLs", () => {
    const r = members(endpoints(), "etcd_members");
    expect(r.status, r.err).to.equal(0);
    const ids = memberIds(cluster.members[0].clientUrl);
    expect(r.out.trim().split("\n").sort()).to.deep.equal(
      cluster.members.map((m) => `${ids[m.peerUrl]} ${m.peerUrl} ${m.clientUrl}`).sort(),
    );
  });

  it("adds a member, which then starts and joins with the cluster's data", async () => {
    expect(etcdctl(endpoints(), "put", "before", "1").status).to.equal(0);
    const m4 = await newMember("m4", cluster.dir);
    all.push(m4);
    const added = members(endpoints(), "etcd_member_add", "m4", m4.peerUrl);
    expect(added.status, added.err).to.equal(0);
    // Not started yet: listed with its peer URL and no client URL.
    expect(members(endpoints(), "etcd_members").out).to.match(new RegExp(`^\\w+ ${m4.peerUrl} -$`, "m"));
    startMember(m4, initialCluster([...cluster.members, m4]), "existing");
    await waitHealthy([m4]);
    expect(etcdctl(m4.clientUrl, "get", "before", "--print-value-only").out).to.equal("1\n");
    expect(Object.keys(memberIds(m4.clientUrl))).to.have.length(4);
  });

  it("removes a stale member and keeps quorum", async () => {
    const [m1, m2, m3] = cluster.members;
    const staleId = memberIds(m1.clientUrl)[m3.peerUrl];
    await stopMember(m3);
    const r = members(endpoints(), "etcd_member_remove", staleId);
    expect(r.status, r.err).to.equal(0);
    expect(Object.keys(memberIds(m1.clientUrl)).sort()).to.deep.equal([m1.peerUrl, m2.peerUrl].sort());
    expect(etcdctl(`${m1.clientUrl},${m2.clientUrl}`, "put", "after", "2").status, "the cluster writes").to.equal(0);
  });

  itFailsOnEtcd36("refuses to remove a member when the members left would lose quorum", async () => {
    const [m1, m2, m3] = cluster.members;
    await stopMember(m3);
    // Two of three left: removing the healthy m2 would leave one healthy member of two.
    const m2Id = memberIds(m1.clientUrl)[m2.peerUrl];
    const r = members(endpoints(), "etcd_member_remove", m2Id);
    expect(r.status).to.equal(3);
    expect(r.err).to.contain("refusing to remove");
    expect(Object.keys(memberIds(m1.clientUrl))).to.have.length(3);
    // With two of three gone, even the stale member's removal cannot keep quorum.
    await stopMember(m2);
    const stale = members(m1.clientUrl, "etcd_member_remove", memberIds(m1.clientUrl)[m3.peerUrl]);
    expect(stale.status).to.equal(3);
  });

  it("refuses to add a member while the cluster could not reach quorum with it", async () => {
    await stopMember(cluster.members[2]);
    const m4 = await newMember("m4", cluster.dir);
    // Four members with two healthy: quorum is three.
    const r = members(endpoints(), "etcd_member_add", "m4", m4.peerUrl);
    expect(r.status).to.equal(3);
    expect(Object.keys(memberIds(cluster.members[0].clientUrl))).to.have.length(3);
  });

  it("updates the peer URL of a member that comes back on a new address", async () => {
    const [m1, , m3] = cluster.members;
    const id = memberIds(m1.clientUrl)[m3.peerUrl];
    await stopMember(m3);
    const moved = await newMember("m3", cluster.dir);
    const r = members(endpoints(), "etcd_member_update_peer", id, moved.peerUrl);
    expect(r.status, r.err).to.equal(0);
    expect(memberIds(m1.clientUrl)[moved.peerUrl]).to.equal(id);
    // The member's data directory keeps its identity: started on the new address, it is the same member.
    const restarted = { ...m3, peerUrl: moved.peerUrl, clientUrl: moved.clientUrl };
    all.push(restarted);
    startMember(restarted, initialCluster(cluster.members), "existing");
    await waitHealthy([restarted]);
    expect(Object.keys(memberIds(restarted.clientUrl))).to.have.length(3);
  });
});

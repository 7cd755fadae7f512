/**
 * The control plane in a box: the dev stack with three control-plane nodes (`controlPlane.count=3`, one
 * group per zone) and no worker, booted together from the plan's unchanged user data. The first inits; the
 * other two join kubeadm's stacked etcd as learners and are promoted. Then the etcd leader's instance is
 * terminated through Auto Scaling, and a replacement joins: etcd keeps every write the API acknowledged,
 * before the termination and during the replacement.
 */
import { expect } from "chai";
import { Box, whyTheBoxCannotRun } from "./box";
import { initialised, K8sNode, ready } from "./k8sNode";
import { Node } from "./node";
import { until } from "./run";
import { cannotRun } from "../cannotRun";
import { TIMEOUTS } from "../../components/timeouts";

interface Member {
  name: string;
  peerURLs: string[];
  isLearner?: boolean;
}

interface EndpointStatus {
  Status: { header: { member_id: string }; leader: string };
}

/** A member as the test compares it: who, where, voting or not. */
const described = (m: Member) => ({ name: m.name, peerURLs: m.peerURLs, learner: Boolean(m.isLearner) });

/** The member a control-plane node should have: named after its Node, at its private address, voting. */
const expectedMember = (n: Node) => ({
  name: n.instance.privateDnsName,
  peerURLs: [`https://${n.instance.privateIp}:2380`],
  learner: false,
});

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/**
 * Learners this node's member promoted: etcd counts a promotion once, on the member that carried it out
 * (`etcd_server_learner_promote_successes`, read from kubeadm's metrics listener on the node's loopback).
 */
async function promotionsBy(node: Node): Promise<number> {
  const metrics = await node.exec("curl -sf http://127.0.0.1:2381/metrics");
  const line = /^etcd_server_learner_promote_successes (\d+)$/m.exec(metrics);
  if (!line) throw new Error(`${node.instance.privateDnsName}: etcd reports no learner promotions metric`);
  return Number(line[1]);
}

describe("the control plane in a box: three control-plane nodes booted together, the etcd leader's replaced", function () {
  this.timeout(30 * 60_000);
  let box: Box;

  before(async function () {
    const reason = whyTheBoxCannotRun();
    if (reason) cannotRun(this, reason);
    const started = Date.now();
    box = await Box.start({ stackFile: "Pulumi.dev.yaml", sets: ["controlPlane.count=3", "nodeGroups[0].minSize=0"] });
    await box.applyAddons();
    process.stdout.write(
      `      the API answered ${Math.round((Date.now() - started) / 1000)}s after the box started\n`,
    );
  });

  after(() => box?.release());

  const nodes = () => box.kubectlJson<{ items: K8sNode[] }>(["get", "nodes"]).then((l) => l.items);
  const members = (node: Node) => box.etcdctl<{ members: Member[] }>(node, ["member", "list"]).then((l) => l.members);

  it("the second and third join etcd as learners and are promoted: three voting members, every node Ready and initialised", async () => {
    const all = await until(
      "three control-plane nodes Ready and initialised",
      async () => {
        const items = await nodes();
        return items.length === 3 && items.every((n) => ready(n) && initialised(n)) ? items : undefined;
      },
      12 * 60_000,
      5000,
    );
    const controlPlane = box.controlPlaneNodes();
    expect(controlPlane.map((n) => n.instance.privateDnsName).sort()).to.deep.equal(
      all.map((n) => n.metadata.name).sort(),
    );
    expect((await members(controlPlane[0])).map(described).sort(byName)).to.deep.equal(
      controlPlane.map(expectedMember).sort(byName),
    );
    // kubeadm added the two that joined as learners, and etcd promoted each once they had caught up.
    const promotions = await Promise.all(controlPlane.map(promotionsBy));
    expect(
      promotions.reduce((a, b) => a + b, 0),
      "learners promoted",
    ).to.equal(2);
    for (const node of controlPlane) {
      const seconds = Math.round((Date.now() - node.bootedAt) / 1000);
      process.stdout.write(`      ${node.instance.privateDnsName}: Ready and initialised within ${seconds}s of boot\n`);
      expect(await node.bootstrapOutcome(), node.instance.privateDnsName).to.deep.equal({
        result: "success",
        restarts: 0,
      });
    }
  });

  it("etcd keeps every acknowledged write while its leader's instance is terminated through Auto Scaling and replaced", async () => {
    // The scenario may run alone (mocha -g): the three members first.
    const original = await until(
      "three voting members",
      async () => {
        const controlPlane = box.controlPlaneNodes();
        if (controlPlane.length !== 3) return undefined;
        const listed = await members(controlPlane[0]);
        return listed.length === 3 && listed.every((m) => !m.isLearner) ? controlPlane : undefined;
      },
      12 * 60_000,
      5000,
    );
    const statuses = await Promise.all(
      original.map((n) => box.etcdctl<EndpointStatus[]>(n, ["endpoint", "status"]).then((s) => s[0].Status)),
    );
    const leader = original[statuses.findIndex((s) => s.header.member_id === s.leader)];
    expect(leader, "the etcd leader's node").to.not.equal(undefined);
    const survivors = original.filter((n) => n !== leader);
    const promotedBefore = await Promise.all(survivors.map(promotionsBy));

    // Writes through the API: before the termination, then one after another until the replacement is in.
    const acknowledged: { i: number; at: number }[] = [];
    const write = async (i: number) => {
      await box.kubectl(["create", "configmap", `box-write-${i}`, `--from-literal=i=${i}`]);
      acknowledged.push({ i, at: Date.now() });
    };
    for (let i = 0; i < 20; i++) await write(i);
    let writing = true;
    const writer = (async () => {
      for (let i = 20; writing; i++) {
        // A write the API did not acknowledge (its server going, etcd electing a leader) is not counted.
        await write(i).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();

    const terminated = Date.now();
    await box.terminateInstance(leader.instance.id);
    // While two members served: from the leader's instance going to its replacement voting.
    const twoMembers = { from: Infinity, to: -Infinity };
    try {
      // The etcd hook holds the instance until its member has left (etcd-leave, after the drain), and no
      // longer: its instance goes well before the hook's timeout would let it go anyway.
      const leaveTimeout = TIMEOUTS.etcd.leaveHeartbeatSeconds;
      await until(
        "the leader's instance to go",
        async () => (box.nodes.has(leader.instance.id) ? undefined : true),
        leaveTimeout * 1000,
      );
      const gone = Math.round((Date.now() - terminated) / 1000);
      expect(gone, "seconds until the leader's instance went").to.be.lessThan(leaveTimeout / 2);
      twoMembers.from = Date.now();
      expect((await members(survivors[0])).map(described).sort(byName), "members once it went").to.deep.equal(
        survivors.map(expectedMember).sort(byName),
      );
      const replacement = await until(
        "a replacement control-plane node Ready and initialised, its member voting",
        async () => {
          const fresh = box.controlPlaneNodes().find((n) => !original.includes(n));
          if (!fresh) return undefined;
          const k8s = (await nodes()).find((n) => n.metadata.name === fresh.instance.privateDnsName);
          const itsOwn = k8s?.spec.providerID === `aws:///${fresh.instance.zone}/${fresh.instance.id}`;
          if (!k8s || !ready(k8s) || !initialised(k8s) || !itsOwn) return undefined;
          const voting = (await members(survivors[0])).every((m) => !m.isLearner);
          return voting && (await box.lifecycleState(fresh.instance.id)) === "InService" ? fresh : undefined;
        },
        15 * 60_000,
        5000,
      );
      twoMembers.to = Date.now();
      const current = [...survivors, replacement];
      expect((await members(replacement)).map(described).sort(byName), "members").to.deep.equal(
        current.map(expectedMember).sort(byName),
      );
      // The replacement joined as a learner too, promoted by one of the two that stayed.
      const promotedAfter = await Promise.all(survivors.map(promotionsBy));
      expect(promotedAfter.reduce((a, b) => a + b, 0) - promotedBefore.reduce((a, b) => a + b, 0)).to.equal(1);
      // The cloud controller deleted the terminated instance's Node.
      await until(
        "the leader's Node to be deleted",
        async () =>
          (await nodes()).some((n) => n.metadata.name === leader.instance.privateDnsName) ? undefined : true,
        5 * 60_000,
        5000,
      );
      process.stdout.write(
        `      the leader's instance went ${gone}s after its termination; replacement ${replacement.instance.privateDnsName} Ready and voting within ${Math.round((Date.now() - replacement.bootedAt) / 1000)}s of boot\n`,
      );
    } finally {
      writing = false;
      await writer;
    }
    // The API took writes with two members, between the leader's instance going and its replacement voting.
    const during = acknowledged.filter((w) => w.at >= twoMembers.from && w.at <= twoMembers.to).length;
    expect(during, "writes acknowledged with two members").to.be.greaterThan(0);
    const stored = await box.kubectlJson<{ items: { metadata: { name: string }; data: { i: string } }[] }>([
      "get",
      "configmaps",
      "-n",
      "default",
    ]);
    const found = new Map(stored.items.map((c) => [c.metadata.name, c.data?.i]));
    const lost = acknowledged.filter(({ i }) => found.get(`box-write-${i}`) !== String(i)).map(({ i }) => i);
    expect(lost, `acknowledged writes lost (of ${acknowledged.length})`).to.deep.equal([]);
    process.stdout.write(
      `      ${acknowledged.length} writes acknowledged, ${during} of them with two members; none lost\n`,
    );
  });
});

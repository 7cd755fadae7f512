/**
 * The control plane in a box: the dev stack with three control-plane nodes (`controlPlane.count=3`, one
 * group per zone) and no worker, booted together from the plan's unchanged user data. The first inits; the
 * other two join kubeadm's stacked etcd as learners and are promoted. Then each of the three, the etcd
 * leader first, is terminated through Auto Scaling in turn, and a replacement joins: etcd keeps every write
 * the API acknowledged, before the terminations and during the replacements. Then a member's etcd dies while its instance runs: the
 * leader removes it and has Auto Scaling replace the instance; that replacement is killed outright once its
 * member votes, before its launch hook completes, and its dead voter is gone when the next one has joined.
 */
import { expect } from "chai";
import { existsSync } from "fs";
import { join } from "path";
import { Box, whyTheBoxCannotRun } from "./box";
import { failureReport } from "./failureReport";
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

describe("the control plane in a box: three control-plane nodes booted together, each replaced in turn", function () {
  this.timeout(30 * 60_000);
  let box: Box;

  before(async function () {
    const reason = whyTheBoxCannotRun();
    if (reason) cannotRun(this, reason);
    const started = Date.now();
    box = await Box.start({
      stackFile: "Pulumi.dev.yaml",
      // A member that stops answering at a running instance goes after a minute (the default is 5).
      sets: ["controlPlane.count=3", "nodeGroups[0].minSize=0", "controlPlane.etcdMemberUnhealthyMinutes=1"],
    });
    await box.applyAddons();
    process.stdout.write(
      `      the API answered ${Math.round((Date.now() - started) / 1000)}s after the box started\n`,
    );
  });

  after(() => box?.release());
  afterEach(async function () {
    if (this.currentTest?.state === "failed" && box)
      process.stdout.write(await failureReport(box.dir, (args) => box.kubectl(args)));
  });

  const nodes = () => box.kubectlJson<{ items: K8sNode[] }>(["get", "nodes"]).then((l) => l.items);
  const members = (node: Node) => box.etcdctl<{ members: Member[] }>(node, ["member", "list"]).then((l) => l.members);

  /**
   * Three control-plane nodes in service whose members all vote, and every PodDisruptionBudget that covers
   * pods allowing an eviction, so that a node's drain is not held by pods still starting elsewhere (a
   * scenario may run alone, mocha -g, or after one that replaced a node).
   */
  const threeVoting = () =>
    until(
      "three voting members in service, every PodDisruptionBudget that covers pods allowing an eviction",
      async () => {
        const controlPlane = box.controlPlaneNodes();
        if (controlPlane.length !== 3) return undefined;
        const listed = await members(controlPlane[0]);
        if (listed.length !== 3 || listed.some((m) => m.isLearner)) return undefined;
        const states = await Promise.all(controlPlane.map((n) => box.lifecycleState(n.instance.id)));
        if (states.some((s) => s !== "InService")) return undefined;
        const budgets = await box.kubectlJson<{
          items: { status?: { expectedPods?: number; disruptionsAllowed?: number } }[];
        }>(["get", "poddisruptionbudgets", "--all-namespaces"]);
        // A budget of an add-on whose images are not built here covers no pod, and holds no drain.
        const holding = budgets.items.filter((b) => (b.status?.expectedPods ?? 0) > 0 && !b.status?.disruptionsAllowed);
        return holding.length ? undefined : controlPlane;
      },
      12 * 60_000,
      5000,
    );

  /**
   * Writes through the API, 20 first, then one a second until `stop`; `lost` then names those the API
   * acknowledged that are not stored. A write the API did not acknowledge (its server going, etcd electing a
   * leader) is not counted.
   */
  async function writes(prefix: string) {
    const acknowledged: { i: number; at: number }[] = [];
    const write = async (i: number) => {
      await box.kubectl(["create", "configmap", `${prefix}-${i}`, `--from-literal=i=${i}`]);
      acknowledged.push({ i, at: Date.now() });
    };
    for (let i = 0; i < 20; i++) await write(i);
    let writing = true;
    const writer = (async () => {
      for (let i = 20; writing; i++) {
        await write(i).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return {
      acknowledged,
      async stop() {
        writing = false;
        await writer;
      },
      async lost() {
        const stored = await box.kubectlJson<{ items: { metadata: { name: string }; data: { i: string } }[] }>([
          "get",
          "configmaps",
          "-n",
          "default",
        ]);
        const found = new Map(stored.items.map((c) => [c.metadata.name, c.data?.i]));
        return acknowledged.filter(({ i }) => found.get(`${prefix}-${i}`) !== String(i)).map(({ i }) => i);
      },
    };
  }

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

  /**
   * TARGET, one of three voting CURRENT nodes, terminated through Auto Scaling: its instance goes once its
   * member has left (the etcd hook holds it until then, and no longer), the other two serve alone, then a
   * replacement joins as a learner, is promoted by one of them and votes. Returns the replacement, with the
   * span during which two members served.
   */
  async function replaceThroughAutoScaling(target: Node, current: Node[]) {
    const survivors = current.filter((n) => n !== target);
    const promotedBefore = await Promise.all(survivors.map(promotionsBy));
    const terminated = Date.now();
    await box.terminateInstance(target.instance.id);
    const leaveTimeout = TIMEOUTS.etcd.leaveHeartbeatSeconds;
    await until(
      `${target.instance.privateDnsName}'s instance to go`,
      async () => (box.nodes.has(target.instance.id) ? undefined : true),
      leaveTimeout * 1000,
    );
    const gone = Math.round((Date.now() - terminated) / 1000);
    expect(gone, "seconds until its instance went").to.be.lessThan(leaveTimeout / 2);
    const twoMembersFrom = Date.now();
    expect((await members(survivors[0])).map(described).sort(byName), "members once it went").to.deep.equal(
      survivors.map(expectedMember).sort(byName),
    );
    const replacement = await until(
      "a replacement control-plane node Ready and initialised, its member voting",
      async () => {
        const fresh = box.controlPlaneNodes().find((n) => !current.includes(n));
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
    const twoMembersTo = Date.now();
    expect((await members(replacement)).map(described).sort(byName), "members").to.deep.equal(
      [...survivors, replacement].map(expectedMember).sort(byName),
    );
    // The replacement joined as a learner too, promoted by one of the two that stayed.
    const promotedAfter = await Promise.all(survivors.map(promotionsBy));
    expect(promotedAfter.reduce((a, b) => a + b, 0) - promotedBefore.reduce((a, b) => a + b, 0)).to.equal(1);
    // The cloud controller deleted the terminated instance's Node.
    await until(
      `${target.instance.privateDnsName}'s Node to be deleted`,
      async () => ((await nodes()).some((n) => n.metadata.name === target.instance.privateDnsName) ? undefined : true),
      5 * 60_000,
      5000,
    );
    process.stdout.write(
      `      ${target.instance.privateDnsName}'s instance went ${gone}s after its termination; replacement ${replacement.instance.privateDnsName} Ready and voting within ${Math.round((Date.now() - replacement.bootedAt) / 1000)}s of boot\n`,
    );
    return { replacement, twoMembers: { from: twoMembersFrom, to: twoMembersTo } };
  }

  it("etcd keeps every acknowledged write while each of its three nodes, the leader first, is terminated through Auto Scaling and replaced in turn", async () => {
    const original = await threeVoting();
    const statuses = await Promise.all(
      original.map((n) => box.etcdctl<EndpointStatus[]>(n, ["endpoint", "status"]).then((s) => s[0].Status)),
    );
    const leader = original[statuses.findIndex((s) => s.header.member_id === s.leader)];
    expect(leader, "the etcd leader's node").to.not.equal(undefined);

    // Writes through the API: before the first termination, then one after another until the last
    // replacement is in.
    const writer = await writes("box-write");
    const { acknowledged } = writer;
    // While two members served: from each instance going to its replacement voting.
    const twoMembers: { from: number; to: number }[] = [];
    try {
      let current = original;
      for (const target of [leader, ...original.filter((n) => n !== leader)]) {
        // Each round starts as the first did: three voting, in service, no budget holding a drain.
        if (target !== leader) current = await threeVoting();
        const round = await replaceThroughAutoScaling(target, current);
        twoMembers.push(round.twoMembers);
        current = [...current.filter((n) => n !== target), round.replacement];
      }
    } finally {
      await writer.stop();
    }
    // The API took writes with two members, between each instance going and its replacement voting.
    const within = ({ from, to }: { from: number; to: number }) =>
      acknowledged.filter((w) => w.at >= from && w.at <= to).length;
    expect(twoMembers.map(within), "writes acknowledged with two members, each replacement").to.satisfy(
      (counts: number[]) => counts.length === 3 && counts.every((n) => n > 0),
    );
    const during = twoMembers.map(within).reduce((a, b) => a + b, 0);
    expect(await writer.lost(), `acknowledged writes lost (of ${acknowledged.length})`).to.deep.equal([]);
    process.stdout.write(
      `      ${acknowledged.length} writes acknowledged, ${during} of them with two members; none lost\n`,
    );
  });
  it("a voter whose etcd died at a running instance is removed and the instance replaced; that replacement, killed outright once promoted, leaves no dead voter; the next joins", async () => {
    const original = await threeVoting();
    const [dead, ...survivors] = original;
    const writer = await writes("box-dead-member");
    const addressOf = (m: Member) => new URL(m.peerURLs[0]).hostname;
    const fresh = () => [...box.nodes.values()].filter((n) => !original.includes(n));
    let replacement: Node;
    try {
      // Its etcd gone (the static pod's manifest taken away; the kubelet stops it), the instance still running.
      await dead.exec("mv /etc/kubernetes/manifests/etcd.yaml /root/etcd.yaml");
      const stopped = Date.now();
      await until(
        "the dead member removed",
        async () =>
          (await members(survivors[0])).some((m) => addressOf(m) === dead.instance.privateIp) ? undefined : true,
        5 * 60_000,
        5000,
      );
      const removed = Math.round((Date.now() - stopped) / 1000);
      expect((await members(survivors[0])).map(described).sort(byName), "members once it was removed").to.deep.equal(
        survivors.map(expectedMember).sort(byName),
      );
      // Marked unhealthy: Auto Scaling replaces it, the replacement first.
      const { AutoScalingInstances } = await box.aws.aws<{ AutoScalingInstances: { HealthStatus: string }[] }>([
        "autoscaling",
        "describe-auto-scaling-instances",
        "--instance-ids",
        dead.instance.id,
      ]);
      expect(AutoScalingInstances.map((i) => i.HealthStatus)).to.deep.equal(["UNHEALTHY"]);
      // Its replacement's member votes while the launch hook still holds the instance: it dies there.
      replacement = await until(
        "a replacement whose member votes while its launch hook holds it",
        async () => {
          const node = fresh()[0];
          if (!node) return undefined;
          const member = (await members(survivors[0])).find((m) => addressOf(m) === node.instance.privateIp);
          if (!member || member.isLearner) return undefined;
          const state = await box.lifecycleState(node.instance.id);
          if (state !== "Pending:Wait") throw new Error(`its member votes, and its instance is ${state} already`);
          return node;
        },
        12 * 60_000,
        500,
      );
      await box.aws.aws(["ec2", "terminate-instances", "--instance-ids", replacement.instance.id]);
      const killed = Date.now();
      // Whether a node after it has begun its join when the dead voter went: it makes etcd's health-check client
      // certificate just before it removes departed members itself (before_member_join).
      const joinBegun = () =>
        fresh().some(
          (n) => n !== replacement && existsSync(join(n.root, "etc/kubernetes/pki/etcd/healthcheck-client.crt")),
        );
      const byJoin = await until(
        "the killed replacement's member removed",
        async () => {
          const begun = joinBegun();
          const listed = (await members(survivors[0])).some((m) => addressOf(m) === replacement.instance.privateIp);
          return listed ? undefined : begun;
        },
        3 * 60_000,
        2000,
      );
      const voterGone = Math.round((Date.now() - killed) / 1000);
      // Removed by the leader's reconciliation (a minute's timer) or by the next node's join (it removes departed
      // members first), whichever came first: either way, only the two survivors are members then, and the next
      // joins. tests/etcd/stackedEtcd.test.ts shows the leader's removal alone.
      expect((await members(survivors[0])).map(described).sort(byName), "members once it was removed").to.deep.equal(
        survivors.map(expectedMember).sort(byName),
      );
      const next = await until(
        "the next replacement Ready and InService, its member voting",
        async () => {
          const node = fresh().find((n) => n !== replacement);
          if (!node) return undefined;
          const k8s = (await nodes()).find((n) => n.metadata.name === node.instance.privateDnsName);
          if (!k8s || !ready(k8s) || !initialised(k8s)) return undefined;
          const listed = await members(survivors[0]);
          const voting = listed.length === 3 && listed.every((m) => !m.isLearner);
          return voting && (await box.lifecycleState(node.instance.id)) === "InService" ? node : undefined;
        },
        15 * 60_000,
        5000,
      );
      expect((await members(next)).map(described).sort(byName), "members").to.deep.equal(
        [...survivors, next].map(expectedMember).sort(byName),
      );
      process.stdout.write(
        `      the dead member removed ${removed}s after its etcd stopped; the promoted replacement's member ${voterGone}s after its kill (${byJoin ? "the next node's join had begun" : "before the next node's join"}); the next Ready and voting within ${Math.round((Date.now() - next.bootedAt) / 1000)}s of boot\n`,
      );
    } finally {
      await writer.stop();
    }
    expect(await writer.lost(), `acknowledged writes lost (of ${writer.acknowledged.length})`).to.deep.equal([]);
  });
});

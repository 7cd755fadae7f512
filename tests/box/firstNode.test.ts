/**
 * The first control-plane node never goes into service: the dev stack's one control-plane node (no worker)
 * claims the init record and runs kubeadm init, then dies while its launch hook still holds it. Auto Scaling
 * launches another, which finds the record's owner gone, no member answering and no snapshot: it takes the
 * record over and creates the cluster, instead of waiting for an API that never comes; the add-ons are applied
 * to it once its API answers, as `pulumi up` applies them.
 */
import { expect } from "chai";
import { Box, whyTheBoxCannotRun } from "./box";
import { headerOf } from "./bootstrapHeader";
import { failureReport } from "./failureReport";
import { initialised, K8sNode, ready } from "./k8sNode";
import { until } from "./run";
import { cannotRun } from "../cannotRun";
import { KUBE_APISERVER } from "../../components/wellKnownPorts";

describe("the first control-plane node in a box never goes into service: the next one creates the cluster", function () {
  this.timeout(25 * 60_000);
  let box: Box;

  before(async function () {
    const reason = whyTheBoxCannotRun();
    if (reason) cannotRun(this, reason);
    box = await Box.start({ stackFile: "Pulumi.dev.yaml", sets: ["nodeGroups[0].minSize=0"] });
  });

  after(() => box?.release());
  afterEach(async function () {
    if (this.currentTest?.state === "failed" && box)
      process.stdout.write(await failureReport(box.dir, (args) => box.kubectl(args)));
  });

  const parameter = (name: string) =>
    box.aws
      .aws<{ Parameter: { Value: string } }>(["ssm", "get-parameter", "--name", name])
      .then((p) => p.Parameter.Value)
      .catch(() => undefined);

  it("dies once its API server runs, before its launch hook is complete; the next takes the init record over and creates the cluster", async () => {
    // The box has no worker: its first node is the control plane's.
    const first = await until("the first node", async () => [...box.nodes.values()][0], 5 * 60_000, 1000);
    const record = await until(
      "its bootstrap script",
      async () => {
        try {
          return headerOf(first, "INIT_RECORD");
        } catch {
          return undefined;
        }
      },
      5 * 60_000,
      1000,
    );
    // Its kubeadm init has started the control plane: a cluster ran, on this node alone.
    await until(
      "the first node's API server ready",
      () =>
        first
          .exec(`curl -skf --max-time 2 https://127.0.0.1:${KUBE_APISERVER}/readyz`)
          .then(() => true)
          .catch(() => undefined),
      10 * 60_000,
      1000,
    );
    expect(await parameter(record)).to.match(new RegExp(`^${first.instance.id} \\S+$`));
    expect(await box.lifecycleState(first.instance.id), "the first node's lifecycle state").to.equal("Pending:Wait");
    await box.aws.aws(["ec2", "terminate-instances", "--instance-ids", first.instance.id]);
    const killed = Date.now();
    // pulumi up applies the add-ons (the cloud controller among them) once the API answers: the next node's.
    await until("the first node gone", async () => (box.nodes.has(first.instance.id) ? undefined : true), 60_000, 1000);
    await box.applyAddons();

    const next = await until(
      "another control-plane node Ready and initialised, InService",
      async () => {
        const fresh = box.controlPlaneNodes().find((n) => n !== first);
        if (!fresh) return undefined;
        const nodes = await box.kubectlJson<{ items: K8sNode[] }>(["get", "nodes"]).catch(() => undefined);
        const k8s = nodes?.items.find((n) => n.metadata.name === fresh.instance.privateDnsName);
        if (!k8s || !ready(k8s) || !initialised(k8s)) return undefined;
        return (await box.lifecycleState(fresh.instance.id)) === "InService" ? fresh : undefined;
      },
      15 * 60_000,
      5000,
    );
    // It took the record over (no snapshot existed: created afresh, not restored), through the succession
    // record that picks one taker.
    expect(await parameter(record)).to.match(new RegExp(`^${next.instance.id} \\S+$`));
    expect(await parameter(`${record}-succession-${first.instance.id}`)).to.match(
      new RegExp(`^${next.instance.id} \\S+$`),
    );
    expect(await next.bootstrapOutcome(), "the next node's bootstrap").to.deep.equal({
      result: "success",
      restarts: 0,
    });
    // The cluster is the next node's: its member alone, and its Node the only one once the cloud controller
    // has deleted the dead instance's (if it registered).
    const members = await box.etcdctl<{ members: { name: string; peerURLs: string[] }[] }>(next, ["member", "list"]);
    expect(members.members.map((m) => [m.name, m.peerURLs])).to.deep.equal([
      [next.instance.privateDnsName, [`https://${next.instance.privateIp}:2380`]],
    ]);
    await until(
      "the dead node's Node gone",
      async () => {
        const { items } = await box.kubectlJson<{ items: K8sNode[] }>(["get", "nodes"]);
        return items.map((n) => n.metadata.name).join() === next.instance.privateDnsName ? true : undefined;
      },
      5 * 60_000,
      5000,
    );
    process.stdout.write(
      `      the next node ${next.instance.privateDnsName} created the cluster and was Ready ${Math.round((Date.now() - killed) / 1000)}s after the first died (${Math.round((Date.now() - next.bootedAt) / 1000)}s after its boot)\n`,
    );
  });
});

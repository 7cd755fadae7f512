// What the plan says for each change of issue 25's table, through the CLI as a reviewer runs it: the risk
// summary read from the resource graph, and the details `pulumi preview --diff` would show.
import { expect } from "chai";
import { join } from "path";
import { CILIUM_LINES, newestRelease } from "../../catalogs/ciliumVersions";
import { diffPlans } from "../../cli/plan/diff";
import { formatDiff } from "../../cli/plan/format";
import { TIMEOUTS } from "../../components/timeouts";
import { planWith } from "../planHelpers";
import { run, scratch } from "./planCli";

const HA = ["--config-file", join("examples", "Pulumi.ha.yaml")];
const DRAIN_WAIT = TIMEOUTS.drain.hookHeartbeatSeconds;
/** The dev stack from ENI to crd IPAM, with the masquerading crd needs. */
const ENI_TO_CRD = [
  "--diff",
  "--set",
  "networking.cilium.ipam=crd",
  "--set",
  "networking.cilium.disableMasquerade=false",
];
/** The summary: what comes before the details. */
const summaryOf = (out: string) => out.slice(0, out.indexOf("\nDetails:"));
const outputsOf = (out: string) => out.slice(out.indexOf("\nOutputs:\n"));

/** A plan that must succeed (exit 0): its output, and the summary in it. */
async function planned(...argv: string[]): Promise<{ out: string; summary: string }> {
  const { code, out, err } = await run(...argv);
  expect(code, err).to.equal(0);
  return { out, summary: summaryOf(out) };
}

describe("plan risks and details, for the changes users hit", () => {
  it("deleting node group batch: its nodes are terminated, each drained first", async () => {
    const { out, summary } = await planned(...HA, "--diff", "--rm", "nodeGroups[2]");
    expect(summary).to.contain(
      "  WARNING: Nodes are terminated: group batch is deleted; its 0 to 20 instance(s) are terminated: " +
        `each waits in termination hook nth-drain (up to ${DRAIN_WAIT} s) while aws-node-termination-handler ` +
        "drains its node, respecting PodDisruptionBudgets; a pod not evicted by then ends with the instance.\n",
    );
    expect(summary).not.to.contain("Nodes will not roll");
    expect(summary).not.to.contain("Data at risk");
    expect(outputsOf(out)).to.contain('  - autoScalingGroups.batch: "batch.ha.prod.example.com"\n');
  });

  it("renaming nodeGroups[0]: the old group's nodes are drained and terminated, and a new group launches", async () => {
    const { summary } = await planned("--diff", "--set", "nodeGroups[0].name=workers");
    expect(summary).to.contain(
      "  WARNING: Nodes are terminated: group nodes is deleted; its 2 to 4 instance(s) are terminated: each waits " +
        "in termination hook nth-drain",
    );
    expect(summary).to.contain("  New group workers: it launches 2 to 4 node(s).\n");
    expect(summary).not.to.contain("Nodes will not roll");
  });

  it("a group whose termination hooks include no drain is terminated undrained: drain it by hand first", async () => {
    const before = await planWith();
    const undrained = {
      ...before,
      resources: before.resources.filter(
        (r) => !(r.type === "aws:autoscaling/lifecycleHook:LifecycleHook" && r.name.endsWith("-nth-drain")),
      ),
    };
    const text = formatDiff(diffPlans(undrained, await planWith({ "nodeGroups[0].name": "workers" })), "x", "text");
    expect(text).to.contain(
      "  WARNING: Nodes are terminated: group nodes is deleted; its 2 to 4 instance(s) are terminated: pods are not " +
        "drained; drain them first (kubectl drain each node whose instance has the tag kops.k8s.io/instancegroup=nodes) " +
        "to move their pods gracefully.\n",
    );
  });

  it("dropping a zone: the internal alias follows, the control plane rolls for its certificate, the outputs change", async () => {
    const { out, summary } = await planned(
      "--diff",
      "--set-json",
      'network.availabilityZones=["us-east-1a","us-east-1c"]',
    );
    expect(summary).to.contain(
      "the alias record(s) api-dns-api-internal follow them, so nodes that reach the API by name keep it; " +
        "the control plane rolls: its API server certificate names them; " +
        "the stack outputs apiEndpoint, kubeconfig change: hand out the new kubeconfig after pulumi up.\n",
    );
    expect(summary).to.contain(
      "  WARNING: Nodes will roll: control-plane group control-plane-us-east-1a: launch template changes (userData): " +
        "instance refresh replaces its nodes, launching each replacement before its instance terminates: all 1 " +
        "instance(s) stay in service; each waits in termination hook nth-drain " +
        `(up to ${DRAIN_WAIT} s) while aws-node-termination-handler drains its node, respecting PodDisruptionBudgets; ` +
        "each waits in termination hook etcd-member (up to 300 s) until its node is drained and its etcd member has " +
        "left; a pod not evicted by then ends with the instance.\n",
    );
    expect(outputsOf(out)).to.match(
      /^ {2}~ apiEndpoint: "network-api-[0-9a-f]{8}\.elb\.us-east-1\.amazonaws\.com\.mock" → "\(new DNS name: network-api is replaced\)"$/m,
    );
  });

  it("switching IPAM eni → crd warns that Cilium does not support it on a live cluster", async () => {
    const { summary } = await planned(...ENI_TO_CRD);
    expect(summary).to.contain(
      "  WARNING: Cilium's IPAM mode changes, eni → crd: Cilium does not support changing IPAM on a live cluster",
    );
    expect(summary).to.contain(
      "to keep the mode: pulumi config set --path networking.cilium.ipam 'eni', with the settings that mode " +
        "needs (docs/cluster-config.md).\n",
    );
  });

  it("an IPAM switch is seen in the apply document too, when the control plane applies the add-ons", async () => {
    const internal = ["--config-file", join("examples", "Pulumi.internal-api.yaml")];
    const { code, out } = await run(...internal, "--diff", "--set", "networking.cilium.ipam=crd");
    expect(code).to.equal(0);
    expect(out).not.to.match(/kubernetes:core\/v1:ConfigMap/);
    expect(summaryOf(out)).to.contain("  WARNING: Cilium's IPAM mode changes, kubernetes → crd:");
  });

  it("a Kubernetes upgrade to the next minor: the control plane first, then the node groups, each roll stated", async () => {
    const { summary } = await planned(...HA, "--diff", "--set", "kubernetesVersion=1.36.5");
    expect(summary).to.contain(
      "  WARNING: Kubernetes is upgraded, 1.35.4 → 1.36.5 (etcd 3.6.6 → 3.6.8): the control plane first, one " +
        "member at a time: control-plane group(s) control-plane-us-east-2a, control-plane-us-east-2b, " +
        "control-plane-us-east-2c are replaced one after another, the first new node moving the cluster's kubeadm " +
        "configuration to 1.36.5 before it joins; only then do node group(s) arm, batch, general roll onto kubelet " +
        "1.36.5, once the last control-plane group's refresh has succeeded (a kubelet is never newer than its API " +
        "server); how each group rolls, and whether its pods are drained, is below.",
    );
    for (const group of ["control-plane-us-east-2a", "general", "arm", "batch"])
      expect(summary).to.match(
        new RegExp(`WARNING: Nodes will roll: (control-plane )?group ${group}: launch template changes \\(userData\\)`),
      );
  });

  it("a Kubernetes downgrade or skipped minor against the base plan: the program refuses it, exit 1", async () => {
    const base = scratch();
    expect((await run("--out", base, "--set", "kubernetesVersion=1.34.12")).code).to.equal(0);
    const skip = await run("--against", base, "--set", "kubernetesVersion=1.36.5");
    expect(skip.code).to.equal(1);
    expect(skip.err).to.contain(
      '  kubernetesVersion: Invalid value: "1.36.5": the cluster runs 1.34.12 (the version this stack last applied): ' +
        "Kubernetes upgrades one minor version at a time (kubeadm's version policy): go to 1.35.8 first, pulumi up, " +
        "then on (fix: pulumi config set --path 'kubernetesVersion' '1.35.8')\n",
    );
    const down = await run("--against", base, "--set", "kubernetesVersion=1.33.13");
    expect(down.code).to.equal(1);
    expect(down.err).to.contain("never downgraded in place");
    const step = await run("--against", base);
    expect(step.code, step.err).to.equal(0);
    expect(summaryOf(step.out)).to.contain("WARNING: Kubernetes is upgraded, 1.34.12 → 1.35.4 (etcd 3.6.5 → 3.6.6)");
  });

  it("Cilium v1.18 → v1.20 skips a minor: an error, exit 1; v1.18 → v1.19 is not", async () => {
    const base = scratch();
    const kubernetes = ["--set", "kubernetesVersion=1.33.5"];
    expect((await run("--out", base, ...kubernetes, "--set", "networking.cilium.version=v1.18.14")).code).to.equal(0);
    const skip = await run("--against", base, ...kubernetes, "--set", "networking.cilium.version=v1.20.2");
    expect(skip.code).to.equal(1);
    const newest119 = newestRelease(CILIUM_LINES.find((l) => l.line === "1.19")!).version;
    expect(summaryOf(skip.out)).to.contain(
      "  ERROR: networking.cilium.version goes v1.18.14 → v1.20.2, skipping a minor version: Cilium upgrades one " +
        `minor at a time; go to 1.19 first (pulumi config set --path networking.cilium.version ${newest119}), ` +
        "pulumi up, then on.\n",
    );
    const step = await run("--against", base, ...kubernetes, "--set", `networking.cilium.version=${newest119}`);
    expect(step.code).to.equal(0);
    expect(step.out).not.to.contain("ERROR");
  });

  it("renaming the cluster is refused (exit 1) unless --allow-cluster-rename, and the outputs show the new name", async () => {
    const rename = ["--diff", "--set", "clusterName=prod.k8s.local"];
    const refused = await run(...rename);
    expect(refused.code).to.equal(1);
    const summary = summaryOf(refused.out);
    expect(summary).to.match(
      /^ {2}ERROR: clusterName changes dev\.k8s\.local → prod\.k8s\.local: that builds a new cluster in place of this one \(\d+ resources replaced or deleted, every node terminated, new CAs and keys, an empty etcd\)\. Clusters are not renamed \(kOps refuses it too\): keep the name \(pulumi config set clusterName dev\.k8s\.local\), or create a new stack for prod\.k8s\.local; to plan the new cluster anyway, add --allow-cluster-rename\.$/m,
    );
    expect(outputsOf(refused.out)).to.contain('  ~ clusterName: "dev.k8s.local" → "prod.k8s.local"\n');
    const allowed = await run(...rename, "--allow-cluster-rename", "--format", "markdown");
    expect(allowed.code).to.equal(0);
    expect(allowed.out).to.match(/^- WARNING: clusterName changes .*; allowed by --allow-cluster-rename\.$/m);
    expect(allowed.out).to.match(
      /\nOutputs:\n\n```\n(?:.*\n)*~ clusterName: "dev\.k8s\.local" → "prod\.k8s\.local"\n(?:.*\n)*```\n/,
    );
  });

  it("moving a zone of the three-member control plane keeps etcd's quorum; its member waits for etcd to let it go", async () => {
    const zones = 'network.availabilityZones=["us-east-2a","us-east-2b","us-east-2d"]';
    // us-east-2 has three zones in the catalog: the fourth is passed knowingly, as a zone AWS opened since.
    const { summary } = await planned(
      ...HA,
      "--set",
      "network.uncatalogedZones[0]=us-east-2d",
      "--diff",
      "--set-json",
      zones,
    );
    expect(summary).to.contain(
      "  WARNING: The control plane moves: member(s) control-plane-us-east-2c are deleted with their etcd data; " +
        "new member(s) control-plane-us-east-2d join first. The other 2 of 3 members keep etcd's quorum and serve the API meanwhile.\n",
    );
    expect(summary).not.to.contain("only API server");
    expect(summary).to.contain(
      "  WARNING: Nodes are terminated: control-plane group control-plane-us-east-2c is deleted; its 1 instance(s) " +
        `are terminated: each waits in termination hook nth-drain (up to ${DRAIN_WAIT} s) while aws-node-termination-handler ` +
        "drains its node, respecting PodDisruptionBudgets; each waits in termination hook etcd-member (up to 300 s) " +
        "until its node is drained and its etcd member has left; a pod not evicted by then ends with the instance.\n",
    );
  });

  it("scaling the control plane from three members to one says what losing its one instance costs", async () => {
    const { summary } = await planned(
      ...HA,
      "--diff",
      "--set",
      "controlPlane.count=1",
      "--set",
      "controlPlane.acceptSingleNodeLoss=true",
    );
    expect(summary).to.contain(
      "  WARNING: One control-plane member: an unplanned loss of its instance costs the etcd writes since the last " +
        "snapshot (controlPlane.backupIntervalMinutes), which its replacement restores; three members lose nothing.\n",
    );
    // Not said again once it is one member.
    expect((await planned("--diff", "--set", "kubernetesVersion=1.35.5")).summary).not.to.contain(
      "One control-plane member",
    );
  });

  it("a created resource lists its inputs", async () => {
    const { out } = await run(
      "--diff",
      "--set-json",
      'nodeGroups[1]={"name":"gpu","instanceType":"g5.xlarge","minSize":0,"maxSize":2}',
    );
    // The resource's line, then its inputs indented below it, as `pulumi preview --diff` lists them.
    const block = /^ {2}\+ {2}create {2}aws:autoscaling\/group:Group {2}gpu-group\n((?: {8}.*\n)+)/m.exec(out);
    expect(block, out).to.not.equal(null);
    const inputs = block![1];
    expect(inputs).to.match(/^ {8}maxSize: 2$/m);
    expect(inputs).to.match(/^ {8}minSize: 0$/m);
    expect(inputs).to.match(/^ {8}initialLifecycleHooks\[0\]\.name: "cilium-cluster-joined"$/m);
  });

  it("a new stack's diff lists user data by its size, and no secret: the program declares none", async () => {
    const dev = await planWith();
    const text = formatDiff(diffPlans({ resources: [], outputs: {}, warnings: [] }, dev), "new stack", "text");
    expect(text).to.match(
      /^ {8}userData: a script of \d+ lines \(--out writes it to userdata\/nodes-template\.txt\)$/m,
    );
    expect(text).not.to.contain("[secret]");
    expect(text).not.to.match(/PRIVATE KEY/);
  });

  it("a user data change shows the lines around it", async () => {
    const { out } = await run("--diff", "--set", "kubernetesVersion=1.35.5");
    expect(out).to.match(
      /^ {12}@@ -\d+,\d+ \+\d+,\d+ @@\n(?: {12}[ +-] .*\n)*? {12}- {3}KUBERNETES_VERSION='1\.35\.4'\n {12}\+ {3}KUBERNETES_VERSION='1\.35\.5'\n {14} {2}API_ENDPOINT='api\.internal\.dev\.k8s\.local'\n/m,
    );
  });
});

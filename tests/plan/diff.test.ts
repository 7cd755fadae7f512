// The plan diff a reviewer reads in a pull request: risks first, cascades followed, IAM in full, version skew.
import { expect } from "chai";
import { diffPlans, PlanDiff } from "../../cli/plan/diff";
import { formatDiff } from "../../cli/plan/format";
import { diffPolicy } from "../../cli/plan/policyDiff";
import { assessRisks } from "../../cli/plan/risks";
import type { Plan } from "../../cli/plan/run";
import { configWith, NON_ENI, planWith } from "../planHelpers";

const texts = (diff: PlanDiff) => assessRisks(diff).map((r) => `${r.level}: ${r.text}`);
const SUBNET = "aws:ec2/subnet:Subnet";

describe("plan diff", () => {
  let dev: Plan;
  before(async () => {
    dev = await planWith();
  });

  it("network.cidr: the subnets under every node are replaced, so every group rolls", async () => {
    const diff = diffPlans(dev, await planWith({ "network.cidr": "10.1.0.0/16" }));
    const risks = texts(diff);
    expect(risks).to.include(
      "warning: Nodes will roll: group nodes: its subnets are replaced (network-private-us-east-1a, " +
        "network-private-us-east-1b, network-private-us-east-1c); launch template changes (vpcSecurityGroupIds[0]): " +
        "instance refresh replaces its nodes, keeping 1 of 2 (its minimum size; more if scaled up) instance(s) in " +
        "service; each waits in termination hook nth-drain " +
        "(up to 300 s) while aws-node-termination-handler drains its node, respecting PodDisruptionBudgets; a pod " +
        "not evicted by then ends with the instance.",
    );
    expect(
      risks.some((r) => r.startsWith("warning: Nodes will roll: control-plane group control-plane-us-east-1a")),
    ).to.equal(true);
    const asg = diff.changes.find((c) => c.name === "nodes-group")!;
    expect(asg.op).to.equal("update");
    expect(asg.causes).to.include("network-private-us-east-1b");
    // A NAT gateway's subnet forces its replacement: the cascade follows it.
    expect(diff.changes.find((c) => c.name === "network-us-east-1a" && c.type.endsWith("NatGateway"))?.op).to.equal(
      "replace",
    );
  });

  it("removing the middle zone deletes its subnets only, warns, and leaves the other zones' subnets alone", async () => {
    const edited = configWith();
    const network = edited["cilium-cluster:network"] as { availabilityZones: string[] };
    network.availabilityZones = ["us-east-1a", "us-east-1c"];
    const diff = diffPlans(dev, await planWith({}, edited));
    const subnets = diff.changes.filter((c) => c.type === SUBNET);
    expect(subnets.map((c) => `${c.op} ${c.name}`)).to.deep.equal([
      "delete network-private-us-east-1b",
      "delete network-utility-us-east-1b",
    ]);
    const risks = texts(diff);
    expect(risks[0]).to.match(
      /^warning: Zone us-east-1b is removed: its subnets \(network-private-us-east-1b, network-utility-us-east-1b\) are deleted/,
    );
    expect(risks).to.include(
      "warning: Nodes move between zones: group nodes: its subnets change; no instance refresh starts for that: " +
        "Auto Scaling terminates its instances in a zone it leaves, and rebalances across the zones it spans, " +
        "launching in the new ones before terminating elsewhere; each waits in termination hook nth-drain (up to " +
        "300 s) while aws-node-termination-handler drains its node, respecting PodDisruptionBudgets; a pod not " +
        "evicted by then ends with the instance.",
    );
    expect(risks.some((r) => r.startsWith("warning: Nodes will roll: group nodes:"))).to.equal(false);
  });

  it("adding a zone: no instance refresh starts, instances are rebalanced across the zones, as Auto Scaling does", async () => {
    const edited = configWith();
    (edited["cilium-cluster:network"] as { availabilityZones: string[] }).availabilityZones.push("us-east-1d");
    const risks = texts(diffPlans(dev, await planWith({}, edited)));
    expect(
      risks.some((r) => r.startsWith("warning: Nodes move between zones: group nodes: its subnets change")),
    ).to.equal(true);
    expect(risks.some((r) => r.startsWith("warning: Nodes will roll: group nodes:"))).to.equal(false);
  });

  it("a maximum size below what the group may run: Auto Scaling lowers the desired capacity, terminating the excess", async () => {
    const risks = texts(diffPlans(dev, await planWith({ "nodeGroups[0].maxSize": "3" })));
    expect(risks[0]).to.match(
      /^warning: Nodes may be terminated: group nodes: its maximum size goes from 4 to 3: Auto Scaling lowers its desired capacity to 3, terminating the instances above 3 if it runs more; each waits in termination hook nth-drain/,
    );
    expect(risks.join("\n")).not.to.contain("Nodes will not roll");
    // A larger maximum terminates nothing.
    expect(texts(diffPlans(dev, await planWith({ "nodeGroups[0].maxSize": "6" })))).to.include(
      "info: Nodes will not roll: no launch template, subnet, zone or size change.",
    );
  });

  it("a group the program names is replaced by deleting it first: no new group runs beside it", async () => {
    const renamed: Plan = {
      ...dev,
      resources: dev.resources.map((r) =>
        r.name === "nodes-group"
          ? { ...r, inputs: { ...(r.inputs as Record<string, unknown>), name: "nodes-2.dev.k8s.local" } }
          : r,
      ),
    };
    const risks = texts(diffPlans(dev, renamed));
    expect(
      risks.some((r) =>
        r.includes("group nodes is replaced (name): the old one is deleted first, then the new one launches new nodes"),
      ),
    ).to.equal(true);
    expect(risks.join("\n")).not.to.contain("a new group launches new nodes, then the old one is deleted");
  });

  it("a Cilium minor that moves with the Kubernetes version is said, with how to take one at a time; a minor back is said too", async () => {
    // networking.cilium.version unset: it follows kubernetesVersion.
    const unpinned = configWith();
    delete (unpinned["cilium-cluster:networking"] as { cilium: { version?: string } }).cilium.version;
    const older = await planWith({ kubernetesVersion: "1.31.14" }, unpinned);
    const risks = texts(diffPlans(older, await planWith({ kubernetesVersion: "1.32.13" }, unpinned)));
    expect(risks).to.include(
      "warning: Cilium moves up a minor, v1.18.14 → v1.19.8: the agents and the operator roll onto it; Cilium's " +
        "upgrade guide asks that its 1.19 upgrade notes be read first; it moves in the same update as Kubernetes " +
        "1.31.14 → 1.32.13: to take one at a time, hold Cilium: pulumi config set --path networking.cilium.version v1.18.14.",
    );
    const back = texts(diffPlans(dev, await planWith({ "networking.cilium.version": "v1.19.8" })));
    expect(back).to.include(
      "warning: Cilium goes back a minor, v1.20.2 → v1.19.8: a rollback its upgrade guide supports between " +
        "consecutive minors; the agents and the operator roll back onto it.",
    );
  });

  it("removing a zone replaces both API network load balancers and says the API endpoints change", async () => {
    const edited = configWith();
    (edited["cilium-cluster:network"] as { availabilityZones: string[] }).availabilityZones = [
      "us-east-1a",
      "us-east-1c",
    ];
    const diff = diffPlans(dev, await planWith({}, edited));
    const balancers = diff.changes.filter((c) => c.type === "aws:lb/loadBalancer:LoadBalancer");
    expect(balancers.map((c) => `${c.op} ${c.name}`)).to.deep.equal([
      "replace network-api",
      "replace network-api-internal",
    ]);
    expect(balancers[0].changes.filter((p) => p.replaces).map((p) => p.path)).to.include("subnets[2]");
    expect(texts(diff)).to.include(
      "warning: The API endpoints change: load balancer(s) network-api (subnets), network-api-internal (subnets) " +
        "are replaced and get new DNS names: network-api, network-api-internal keep their names, which AWS holds " +
        "unique, so each is deleted before its replacement is created: the API is unreachable through them until " +
        "the new ones are active (minutes); the alias record(s) api-dns-api-internal follow them, so nodes that " +
        "reach the API by name keep it; the control plane rolls: its API server certificate names them; the stack " +
        "outputs apiEndpoint, kubeconfig change: hand out the new kubeconfig after pulumi up.",
    );
    // The cascade follows the public load balancer's DNS name into the control plane's installer, a new object
    // under a new key, and that key into the group's user data (its loader).
    const installer = diff.changes.find((c) => c.name === "control-plane-us-east-1a-bootstrap")!;
    expect(installer.op).to.equal("replace");
    expect(installer.changes.map((p) => `${p.path} ${p.cause}`)).to.deep.equal(["content network-api"]);
    const template = diff.changes.find((c) => c.name === "control-plane-us-east-1a-template")!;
    expect(template.changes.map((p) => `${p.path} ${p.cause}`)).to.deep.equal([
      "userData control-plane-us-east-1a-bootstrap",
    ]);
    expect(diff.rollingGroups).to.include("control-plane-us-east-1a-template");
    expect(diff.outputs.find((o) => o.path === "apiEndpoint")?.new).to.equal("(new DNS name: network-api is replaced)");
  });

  it("adding a zone grows the load balancers' subnets in place", async () => {
    const edited = configWith();
    const network = edited["cilium-cluster:network"] as { availabilityZones: string[] };
    network.availabilityZones = ["us-east-1a", "us-east-1b"];
    const diff = diffPlans(await planWith({}, edited), dev);
    const balancers = diff.changes.filter((c) => c.type === "aws:lb/loadBalancer:LoadBalancer");
    expect(balancers.map((c) => `${c.op} ${c.name}`)).to.deep.equal([
      "update network-api",
      "update network-api-internal",
    ]);
    expect(texts(diff).some((r) => r.includes("API endpoints change"))).to.equal(false);
  });

  it("network.cidr replaces the API load balancers: their subnets are all replaced", async () => {
    const diff = diffPlans(dev, await planWith({ "network.cidr": "10.1.0.0/16" }));
    const balancers = diff.changes.filter((c) => c.type === "aws:lb/loadBalancer:LoadBalancer");
    expect(balancers.map((c) => c.op)).to.deep.equal(["replace", "replace"]);
    expect(texts(diff).some((r) => r.startsWith("warning: The API endpoints change"))).to.equal(true);
    // A subnet's route table association shares its name, and is replaced with it (subnetId forces it).
    const associations = diff.changes.filter(
      (c) => c.type === "aws:ec2/routeTableAssociation:RouteTableAssociation" && c.name.startsWith("network-private-"),
    );
    expect(associations.length).to.be.greaterThan(0);
    for (const a of associations) expect([a.name, a.op]).to.deep.equal([a.name, "replace"]);
  });

  it("reordering zones moves no subnet, and order-only changes to set-typed inputs are no changes", async () => {
    const edited = configWith();
    const network = edited["cilium-cluster:network"] as { availabilityZones: string[] };
    network.availabilityZones = ["us-east-1a", "us-east-1c", "us-east-1b"];
    const diff = diffPlans(dev, await planWith({}, edited));
    expect(diff.changes.map((c) => `${c.op} ${c.name}`)).to.deep.equal([]);
  });

  it("opening the API to the whole internet is said; another address added is not", async () => {
    const open = texts(diffPlans(dev, await planWith({ "api.access[1]": "0.0.0.0/0" })));
    expect(open.filter((t) => t.includes("whole internet"))).to.have.length(1);
    const narrow = texts(diffPlans(dev, await planWith({ "api.access[1]": "198.51.100.0/24" })));
    expect(narrow.filter((t) => t.includes("whole internet"))).to.deep.equal([]);
  });

  it("an IPAM switch from the default mode says how to keep it with the config's value, not cilium-config's", async () => {
    const before = await planWith(NON_ENI);
    const switched = texts(diffPlans(before, await planWith({ ...NON_ENI, "networking.cilium.ipam": "crd" })));
    const warning = switched.find((t) => t.includes("IPAM mode changes, kubernetes → crd"))!;
    expect(warning).to.contain("to keep the mode: pulumi config set --path networking.cilium.ipam ''");
  });

  it("NAT gateways per zone to a single one: the egress addresses released are said", async () => {
    const single = texts(diffPlans(dev, await planWith({ "network.natGateways": "single" })));
    expect(single.filter((t) => t.includes("egress addresses change"))).to.deep.equal([
      "warning: The nodes' egress addresses change: NAT gateway Elastic IPs released (network-nat-us-east-1b, " +
        "network-nat-us-east-1c). Allowlists outside the VPC that name the old addresses must follow.",
    ]);
    expect(texts(diffPlans(dev, await planWith())).filter((t) => t.includes("egress"))).to.deep.equal([]);
  });

  it("removing the control plane's zone says the control plane moves", async () => {
    const edited = configWith();
    (edited["cilium-cluster:network"] as { availabilityZones: string[] }).availabilityZones = [
      "us-east-1b",
      "us-east-1c",
    ];
    const risks = texts(diffPlans(dev, await planWith({}, edited)));
    expect(risks).to.include(
      "warning: The control plane moves: member(s) control-plane-us-east-1a are deleted with their etcd data; " +
        "new member(s) control-plane-us-east-1b join first. With one control-plane member, this replaces the cluster's only API server and etcd.",
    );
  });

  it("an IPAM switch shows every ENI permission it adds, statement by statement", async () => {
    const diff = diffPlans(await planWith(NON_ENI), dev);
    const text = formatDiff(diff, "switch", "text");
    for (const action of ["ec2:CreateNetworkInterface", "ec2:AssignPrivateIpAddresses", "ec2:DeleteNetworkInterface"]) {
      expect(text).to.contain(`+   ${action}`);
    }
    expect(text).to.contain("statement CiliumEniUseOwn added:");
    expect(text).to.contain("aws:ResourceTag/KubernetesCluster");
    // The ENI mode's own policy comes with it, attached to the control-plane role.
    expect(text).to.contain("control-plane-CiliumEni-attachment");
    expect(texts(diff).find((r) => r.startsWith("warning: IAM widened: control-plane-CiliumEni gains"))).to.contain(
      "ec2:UnassignPrivateIpAddresses",
    );
  });

  it("diffs policy statements by Sid, listing what each gains and loses", () => {
    const doc = (...statements: object[]) => JSON.stringify({ Version: "2012-10-17", Statement: statements });
    const changes = diffPolicy(
      doc(
        { Sid: "A", Effect: "Allow", Action: ["s3:GetObject", "s3:PutObject"], Resource: "*" },
        { Sid: "B", Effect: "Allow", Action: "sqs:*", Resource: "*" },
      ),
      doc({ Sid: "A", Effect: "Allow", Action: ["s3:GetObject", "s3:DeleteObject"], Resource: "*" }),
    );
    expect(changes).to.deep.equal([
      {
        id: "A",
        op: "changed",
        lines: ["  Action:", "-   s3:PutObject", "+   s3:DeleteObject"],
        grants: ["s3:DeleteObject"],
        revokes: ["s3:PutObject"],
      },
      {
        id: "B",
        op: "removed",
        lines: ["- Sid: B", "- Effect: Allow", "- Action: sqs:*", "- Resource: *"],
        grants: [],
        revokes: ["sqs:*"],
      },
    ]);
  });

  it("a Kubernetes jump of two minor versions, or a downgrade, is an error; one minor up is stated with its order", async () => {
    const old = configWith({ kubernetesVersion: "1.33.5" });
    const jump = diffPlans(await planWith({}, old), dev);
    expect(texts(jump)[0]).to.equal(
      'error: kubernetesVersion: Invalid value: "1.35.4": the cluster runs 1.33.5 (the version this stack last ' +
        "applied): Kubernetes upgrades one minor version at a time (kubeadm's version policy): go to 1.34.12 " +
        "first, pulumi up, then on (fix: pulumi config set --path 'kubernetesVersion' '1.34.12')",
    );
    const down = diffPlans(dev, await planWith({ kubernetesVersion: "1.34.3" }));
    expect(texts(down)[0]).to.match(
      /^error: kubernetesVersion: Invalid value: "1\.34\.3": the cluster runs 1\.35\.4 .*never downgraded in place/,
    );
    const patch = diffPlans(dev, await planWith({ kubernetesVersion: "1.35.5" }));
    expect(texts(patch).filter((r) => r.startsWith("error"))).to.deep.equal([]);
    expect(texts(patch)).to.include(
      "warning: Kubernetes is upgraded, 1.35.4 → 1.35.5: the control plane first, one member at a time: " +
        "control-plane group(s) control-plane-us-east-1a are replaced one after another, the first new node moving " +
        "the cluster's kubeadm configuration to 1.35.5 before it joins; node group(s) nodes roll onto kubelet " +
        "1.35.5 meanwhile (a patch release runs with the API servers of its minor); how each group rolls, and " +
        "whether its pods are drained, is below. Once a control plane of the new release runs, the upgrade only " +
        "goes forward: new nodes of an older version refuse to join. Should the first new control-plane node " +
        "fail before that, setting the version back moves the cluster back (docs/operations.md, upgrades).",
    );
    expect(texts(diffPlans(dev, await planWith()))).not.to.satisfy((t: string[]) =>
      t.some((r) => r.includes("upgraded")),
    );
  });

  it("puts the summary before the details, in text and markdown", async () => {
    const diff = diffPlans(dev, await planWith({ "network.cidr": "10.1.0.0/16" }));
    const text = formatDiff(diff, "t", "text");
    expect(text.indexOf("Nodes will roll")).to.be.greaterThan(0).and.lessThan(text.indexOf("Details:"));
    const markdown = formatDiff(diff, "t", "markdown");
    expect(markdown.indexOf("- WARNING: Nodes will roll"))
      .to.be.greaterThan(0)
      .and.lessThan(markdown.indexOf("| op |"));
  });
});

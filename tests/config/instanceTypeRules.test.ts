// What EC2 reports of an instance type (catalogs/recorded/instanceTypeFactsRecord.ts, from DescribeInstanceTypes)
// keeps out the types that cannot run here: a control plane kubeadm's preflight refuses, a type that runs only
// on Dedicated Hosts, an ENI-mode worker whose addresses the cluster's own pods take.
import { expect } from "chai";
import { eniMaxPods, instanceTypeFacts } from "../../catalogs/instanceTypes";
import { validateConfig } from "../../components/clusterConfigValidation";
import { podNetworkDaemonSets } from "../../config/validation/nodeGroups";
import { formatWithFix } from "../../config/validation/report";
import { baseConfig, merge, REGION } from "../fixtures";
import { planWith } from "../planHelpers";

/** The base config's node group with another instance type. */
const workers = (instanceType: string) => [{ name: "nodes", instanceType, minSize: 2, maxSize: 4 }];

const errorsOf = (edit: Record<string, unknown>) =>
  validateConfig(merge(baseConfig(), edit), REGION)
    .errors.filter((e) => e.field.endsWith("instanceType"))
    .map(formatWithFix);

describe("instance types EC2 describes", () => {
  it("records EC2's own figures: vCPUs, memory and ENI limits (AWS's ENI table: t3.large 3 × 12)", () => {
    expect(instanceTypeFacts("t3.large")).to.deep.equal({
      vcpus: 2,
      memoryMiB: 8192,
      enis: 3,
      ipv4PerEni: 12,
      dedicatedHostsOnly: false,
    });
    expect(instanceTypeFacts("mac1.metal")?.dedicatedHostsOnly).to.equal(true);
  });

  it("a control plane below kubeadm's 2 vCPUs and 1700 MB is refused, with the family's smallest that passes", () => {
    expect(errorsOf({ controlPlane: { instanceType: "t3.micro" } })).to.deep.equal([
      'controlPlane.instanceType: Invalid value: "t3.micro": t3.micro has 2 vCPU(s) and 1024 MiB; kubeadm\'s preflight ' +
        "refuses a control-plane node with fewer than 2 vCPUs or 1700 MB (fix: pulumi config set --path " +
        "'controlPlane.instanceType' 't3.small')",
    ]);
    expect(errorsOf({ controlPlane: { instanceType: "t2.nano" } })[0]).to.match(/'t2\.medium'\)$/);
    expect(errorsOf({ controlPlane: { instanceType: "t3.small" } })).to.deep.equal([]);
    // Workers have no such floor.
    expect(
      errorsOf({
        networking: { cilium: { ipam: "", disableMasquerade: false } },
        nodeGroups: workers("t3.micro"),
      }),
    ).to.deep.equal([]);
  });

  it("a type that runs only on Dedicated Hosts is refused, with one of shared hardware at least as large", () => {
    const [error] = errorsOf({ nodeGroups: workers("mac2.metal") });
    expect(error).to.match(
      /runs only on Dedicated Hosts .*\(fix: pulumi config set --path 'nodeGroups\[0\]\.instanceType' 'm\d+i?\.\w+'\)$/,
    );
  });

  it("in ENI mode, a worker whose ENIs hold only the cluster's own pods is refused; outside ENI mode it runs 110", () => {
    const micro = { nodeGroups: workers("t2.micro") };
    const [error] = errorsOf({ ...micro, networking: { cilium: { ipam: "eni", disableMasquerade: true } } });
    expect(error).to.match(
      /in ENI mode a t2\.micro node runs 2 pods .* none is left for workloads \(fix: .*'t2\.small'\)$/,
    );
    expect(errorsOf({ ...micro, networking: { cilium: { ipam: "", disableMasquerade: false } } })).to.deep.equal([]);
    expect(eniMaxPods("t2.small", 2) - 2 - 1).to.be.greaterThan(0);
  });

  it("counts the program's own DaemonSet pods on the pod network as the plan declares them", async () => {
    const plan = await planWith();
    const daemonSets = plan.resources.filter((r) => r.type === "kubernetes:apps/v1:DaemonSet");
    const onPodNetwork = daemonSets.filter(
      (r) =>
        (r.inputs as { spec: { template: { spec: { hostNetwork?: boolean } } } }).spec.template.spec.hostNetwork !==
        true,
    );
    expect(onPodNetwork.length).to.equal(
      podNetworkDaemonSets({ addons: { ebsCsiDriver: { enabled: true } } } as never),
    );
  });
});

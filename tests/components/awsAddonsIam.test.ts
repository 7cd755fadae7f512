// The AWS add-ons' permissions by policy simulation: the control plane may create load balancers and volumes
// tagged for this cluster and change only those; workers may do none of it; nothing touches another cluster's.
import { expect } from "chai";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { policyDocument } from "../../components/iam/policyDocument";
import {
  CLOUD_CONTROLLER_CHANGES,
  CLOUD_CONTROLLER_READS,
  cloudController,
} from "../../components/cloudController/cloudControllerRights";
import { EBS_CSI_READS, ebsCsiDriver } from "../../components/ebsCsi/ebsCsiDriverRights";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";
import { specWith } from "../fixtures";

const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: ACCOUNT_ID };
const spec = specWith({});
const CLUSTER = spec.clusterName;
const ours = { "aws:ResourceTag/KubernetesCluster": CLUSTER };
const theirs = { "aws:ResourceTag/KubernetesCluster": "other.k8s.local" };
const arn = (service: string, resource: string) => `arn:aws:${service}:us-east-1:${ACCOUNT_ID}:${resource}`;
const LOAD_BALANCER = arn("elasticloadbalancing", "loadbalancer/net/a0123456789abcdef0123456789abcd/0123456789abcdef");
const TARGET_GROUP = arn("elasticloadbalancing", "targetgroup/k8s-default-web-0123456789/0123456789abcdef");
const CLASSIC = arn("elasticloadbalancing", "loadbalancer/a0123456789abcdef0123456789abcd");
const LISTENER = arn(
  "elasticloadbalancing",
  "listener/net/a0123456789abcdef0123456789abcd/0123456789abcdef/0123456789abcdef",
);
const GROUP = arn("ec2", "security-group/sg-0123456789abcdef0");
const VPC = arn("ec2", "vpc/vpc-0123456789abcdef0");
const VOLUME = arn("ec2", "volume/vol-0123456789abcdef0");
const INSTANCE = arn("ec2", "instance/i-0123456789abcdef0");
/** What a change acts on: a security group, a listener, a target group or a load balancer. */
const target = (action: string) =>
  action.startsWith("ec2:")
    ? GROUP
    : /:(Modify|Delete)Listener$/.test(action)
      ? LISTENER
      : /TargetGroup(Attributes)?$|Targets$/.test(action)
        ? TARGET_GROUP
        : LOAD_BALANCER;

describe("the cloud controller manager's permissions", () => {
  const controlPlane = attachedPolicies("control-plane", spec, AT);
  const nodes = attachedPolicies("node", spec, AT);
  const own = policyDocument(cloudController.statements("control-plane", spec, AT));

  it("let the control plane, through its own statements, create load balancers and groups tagged for this cluster", async () => {
    const tagged = { "aws:RequestTag/KubernetesCluster": CLUSTER };
    for (const policy of [own, controlPlane]) {
      expect(await may(policy, "elasticloadbalancing:CreateLoadBalancer", LOAD_BALANCER, tagged)).to.equal(true);
      expect(await may(policy, "elasticloadbalancing:CreateLoadBalancer", CLASSIC, tagged)).to.equal(true);
      expect(await may(policy, "elasticloadbalancing:CreateTargetGroup", TARGET_GROUP, tagged)).to.equal(true);
      expect(await may(policy, "ec2:CreateSecurityGroup", GROUP, tagged)).to.equal(true);
      expect(await may(policy, "ec2:CreateSecurityGroup", VPC, ours)).to.equal(true);
      const onCreate = { ...tagged, "ec2:CreateAction": "CreateSecurityGroup" };
      expect(await may(policy, "ec2:CreateTags", GROUP, onCreate)).to.equal(true);
      for (const action of CLOUD_CONTROLLER_READS) expect(await may(policy, action, "*"), action).to.equal(true);
      for (const action of CLOUD_CONTROLLER_CHANGES) {
        expect(await may(policy, action, target(action), ours), action).to.equal(true);
      }
    }
  });

  it("refuse what is untagged or another cluster's, and a group in another VPC", async () => {
    expect(await may(controlPlane, "elasticloadbalancing:CreateLoadBalancer", LOAD_BALANCER)).to.equal(false);
    expect(
      await may(controlPlane, "elasticloadbalancing:CreateLoadBalancer", LOAD_BALANCER, {
        "aws:RequestTag/KubernetesCluster": "other.k8s.local",
      }),
    ).to.equal(false);
    expect(await may(controlPlane, "ec2:CreateSecurityGroup", VPC, theirs)).to.equal(false);
    for (const action of CLOUD_CONTROLLER_CHANGES) {
      expect(await may(controlPlane, action, target(action), theirs), action).to.equal(false);
    }
    // A group of this cluster cannot be moved out of it, nor another's tagged.
    expect(
      await may(controlPlane, "ec2:CreateTags", GROUP, { ...ours, "aws:RequestTag/KubernetesCluster": "other" }),
    ).to.equal(false);
    expect(await may(controlPlane, "ec2:CreateTags", GROUP, theirs)).to.equal(false);
    // No route-table writes: the route controller is off.
    expect(await may(controlPlane, "ec2:CreateRoute", arn("ec2", "route-table/rtb-0123456789abcdef0"), ours)).to.equal(
      false,
    );
  });

  it("give workers no load balancer or security group of their own making", async () => {
    const tagged = { "aws:RequestTag/KubernetesCluster": CLUSTER };
    expect(await may(nodes, "elasticloadbalancing:CreateLoadBalancer", LOAD_BALANCER, tagged)).to.equal(false);
    expect(await may(nodes, "ec2:CreateSecurityGroup", GROUP, tagged)).to.equal(false);
    for (const action of CLOUD_CONTROLLER_CHANGES)
      expect(await may(nodes, action, target(action), ours), action).to.equal(false);
    expect(cloudController.statements("node", spec, AT)).to.deep.equal([]);
  });
});

describe("the EBS CSI driver's permissions", () => {
  const controlPlane = attachedPolicies("control-plane", spec, AT);
  const nodes = attachedPolicies("node", spec, AT);
  const own = policyDocument(ebsCsiDriver.statements("control-plane", spec, AT));
  const driverVolume = { ...ours, "aws:ResourceTag/CSIVolumeName": "pvc-0123" };

  it("let the control plane, through its own statements, create, attach, resize and delete this cluster's volumes", async () => {
    for (const policy of [own, controlPlane]) {
      expect(await may(policy, "ec2:CreateVolume", VOLUME, { "aws:RequestTag/KubernetesCluster": CLUSTER })).to.equal(
        true,
      );
      const onCreate = { "ec2:CreateAction": "CreateVolume", "aws:RequestTag/KubernetesCluster": CLUSTER };
      expect(await may(policy, "ec2:CreateTags", VOLUME, onCreate)).to.equal(true);
      for (const action of ["ec2:AttachVolume", "ec2:DetachVolume", "ec2:ModifyVolume", "ec2:DeleteVolume"])
        expect(await may(policy, action, VOLUME, driverVolume), action).to.equal(true);
      for (const action of ["ec2:AttachVolume", "ec2:DetachVolume"])
        expect(await may(policy, action, INSTANCE, ours), action).to.equal(true);
      for (const action of EBS_CSI_READS) expect(await may(policy, action, "*"), action).to.equal(true);
    }
  });

  it("touch no other cluster's volumes or instances, and not this cluster's root volumes", async () => {
    expect(await may(controlPlane, "ec2:CreateVolume", VOLUME)).to.equal(false);
    expect(
      await may(controlPlane, "ec2:CreateVolume", VOLUME, { "aws:RequestTag/KubernetesCluster": "other.k8s.local" }),
    ).to.equal(false);
    expect(await may(controlPlane, "ec2:CreateTags", VOLUME, ours)).to.equal(false);
    // Tagging on create, of a volume created for another cluster.
    const creating = { "ec2:CreateAction": "CreateVolume", "aws:RequestTag/KubernetesCluster": "other.k8s.local" };
    expect(await may(controlPlane, "ec2:CreateTags", VOLUME, creating)).to.equal(false);
    for (const action of ["ec2:AttachVolume", "ec2:DetachVolume", "ec2:ModifyVolume", "ec2:DeleteVolume"]) {
      const other = { ...theirs, "aws:ResourceTag/CSIVolumeName": "pvc-0123" };
      expect(await may(controlPlane, action, VOLUME, other), action).to.equal(false);
      // A root volume carries the cluster's tag from its launch template, but no CSIVolumeName.
      expect(await may(controlPlane, action, VOLUME, ours), `${action} on a root volume`).to.equal(false);
    }
    expect(await may(controlPlane, "ec2:AttachVolume", INSTANCE, theirs)).to.equal(false);
    expect(
      await may(controlPlane, "ec2:DeleteSnapshot", "arn:aws:ec2:us-east-1::snapshot/snap-0123456789abcdef0", ours),
    ).to.equal(false);
  });

  it("give workers no volume calls, and the control plane none once the driver is off", async () => {
    const off = attachedPolicies("control-plane", specWith({ addons: { ebsCsiDriver: { enabled: false } } }), AT);
    for (const policy of [nodes, off]) {
      expect(await may(policy, "ec2:CreateVolume", VOLUME, { "aws:RequestTag/KubernetesCluster": CLUSTER })).to.equal(
        false,
      );
      expect(await may(policy, "ec2:DeleteVolume", VOLUME, driverVolume)).to.equal(false);
      expect(await may(policy, "ec2:AttachVolume", INSTANCE, ours)).to.equal(false);
    }
  });
});

describe("private images", () => {
  it("grant no role ECR: the kubelet runs no ECR credential provider, so nothing would use the grant", async () => {
    const repository = arn("ecr", "repository/app");
    for (const role of ["control-plane", "node"] as const) {
      const policy = attachedPolicies(role, spec, AT);
      expect(await may(policy, "ecr:GetAuthorizationToken", "*"), role).to.equal(false);
      expect(await may(policy, "ecr:BatchGetImage", repository), role).to.equal(false);
    }
  });
});

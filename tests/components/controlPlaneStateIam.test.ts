// The control plane's state in IAM, simulated: only the control-plane role may create the init record,
// upload etcd snapshots (and read them back, to restore), find the cluster's instances and complete the termination hook
// of the cluster's groups; it touches no volume and no DNS record.
import { expect } from "chai";
import { attachedPolicies, may } from "../iamSimulator";
import type { AwsCoordinates } from "../../components/iam/rolePolicies";
import { policyDocument } from "../../components/iam/policyDocument";
import { controlPlaneState } from "../../components/controlPlane/controlPlaneStateAccess";
import { backupBucketName } from "../../components/controlPlane/backupBucket";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";
import { LATEST_SNAPSHOT_KEY } from "../../components/nodes/controlPlaneNames";

const AT: AwsCoordinates = { partition: "aws", region: REGION, accountId: "000000000000" };
const spec = validateConfig(baseConfig(), REGION).spec;

/** A request on a resource tagged for a cluster, as Auto Scaling and EC2 present the tag (both keys). */
const taggedFor = (cluster: string) => ({
  "aws:ResourceTag/KubernetesCluster": cluster,
  "autoscaling:ResourceTag/KubernetesCluster": cluster,
});
const ours = taggedFor("dev.k8s.local");
const theirs = taggedFor("other.k8s.local");
/** A control-plane group's tags: the cluster's and the role's. */
const controlPlaneGroup = (cluster: string) => ({
  ...taggedFor(cluster),
  "aws:ResourceTag/k8s.io/role/control-plane": "1",
});
const VOLUME = "arn:aws:ec2:us-east-1:000000000000:volume/vol-0123456789abcdef0";
const INSTANCE = "arn:aws:ec2:us-east-1:000000000000:instance/i-0123456789abcdef0";
const GROUP =
  "arn:aws:autoscaling:us-east-1:000000000000:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/control-plane-us-east-1a.dev.k8s.local";
const record = (cluster: string) =>
  `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/control-plane/initialized-0123456789ab`;

describe("control-plane state IAM, simulated", () => {
  const cp = attachedPolicies("control-plane", spec, AT);
  const node = attachedPolicies("node", spec, AT);
  // The state's own statements: the cloud controller and the EBS CSI driver on the same role read groups and
  // attach volumes through theirs.
  const state = policyDocument(controlPlaneState.statements("control-plane", spec, AT));

  it("the control plane creates its own cluster's init record and stores its keys, no other parameter; workers cannot", async () => {
    expect(await may(cp, "ssm:PutParameter", record("dev.k8s.local"))).to.equal(true);
    expect(await may(cp, "ssm:GetParameter", record("dev.k8s.local"))).to.equal(true);
    // The succession record of a stale one's takeover (bootstrap/control-plane.sh).
    const succession = `${record("dev.k8s.local")}-succession-i-0123456789abcdef0`;
    for (const action of ["ssm:PutParameter", "ssm:GetParameter"])
      expect(await may(cp, action, succession), action).to.equal(true);
    expect(await may(cp, "ssm:PutParameter", `${record("other.k8s.local")}-succession-i-0123456789abcdef0`)).to.equal(
      false,
    );
    expect(await may(cp, "ssm:PutParameter", record("other.k8s.local"))).to.equal(false);
    // The node that created the cluster stores the keys its kubeadm init made, and the CA's certificate: its own
    // cluster's, under those names only.
    const parameter = (cluster: string, path: string) =>
      `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/${path}`;
    for (const path of ["control-plane/pki-0123456789ab/ca.key", "control-plane/pki-0123456789ab/etcd/ca.key"]) {
      expect(await may(cp, "ssm:PutParameter", parameter("dev.k8s.local", path)), path).to.equal(true);
      expect(await may(cp, "ssm:PutParameter", parameter("other.k8s.local", path)), path).to.equal(false);
      expect(await may(node, "ssm:PutParameter", parameter("dev.k8s.local", path)), path).to.equal(false);
    }
    const ca = "node/cluster-ca-0123456789ab";
    expect(await may(cp, "ssm:PutParameter", parameter("dev.k8s.local", ca))).to.equal(true);
    expect(await may(cp, "ssm:PutParameter", parameter("other.k8s.local", ca))).to.equal(false);
    expect(await may(node, "ssm:PutParameter", parameter("dev.k8s.local", ca))).to.equal(false);
    for (const path of ["control-plane/ca.key", "node/ca.crt", "node/bootstrap-token"])
      expect(await may(cp, "ssm:PutParameter", parameter("dev.k8s.local", path)), path).to.equal(false);
    expect(await may(cp, "ssm:DeleteParameter", record("dev.k8s.local")), "the record is never deleted").to.equal(
      false,
    );
    // The node that restores the snapshot a restore request names deletes the request (kubeadm_init): its own
    // cluster's only, and writes none (npm run restore-snapshot does). Workers neither read nor delete it.
    const request = (cluster: string) =>
      `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/control-plane/restore-request-0123456789ab`;
    for (const action of ["ssm:GetParameter", "ssm:DeleteParameter"]) {
      expect(await may(cp, action, request("dev.k8s.local")), action).to.equal(true);
      expect(await may(node, action, request("dev.k8s.local")), action).to.equal(false);
    }
    expect(await may(cp, "ssm:PutParameter", request("dev.k8s.local")), "a node schedules no restore").to.equal(false);
    expect(await may(cp, "ssm:DeleteParameter", request("other.k8s.local"))).to.equal(false);
    expect(await may(cp, "ssm:DeleteParameter", `${record("dev.k8s.local")}-succession-i-0123456789abcdef0`)).to.equal(
      false,
    );
    expect(await may(node, "ssm:PutParameter", record("dev.k8s.local"))).to.equal(false);
    expect(await may(node, "ssm:GetParameter", record("dev.k8s.local"))).to.equal(false);
  });

  it("only the control plane uploads snapshots, under the bucket's snapshot prefix and fixed key, and reads them back", async () => {
    const bucket = backupBucketName("dev.k8s.local", AT.accountId, REGION);
    const object = `arn:aws:s3:::${bucket}/etcd/20260101T000000Z.db`;
    const latest = `arn:aws:s3:::${bucket}/${LATEST_SNAPSHOT_KEY}`;
    for (const key of [object, latest]) {
      expect(await may(cp, "s3:PutObject", key), key).to.equal(true);
      // Retention is the bucket's lifecycle: a node deletes nothing.
      for (const action of ["s3:DeleteObject", "s3:DeleteObjectVersion"])
        expect(await may(cp, action, key), `${action} ${key}`).to.equal(false);
      expect(await may(node, "s3:PutObject", key), key).to.equal(false);
      expect(await may(node, "s3:GetObject", key), key).to.equal(false);
    }
    // A node that creates the cluster again restores the latest snapshot, or the one a restore request names
    // (bootstrap/etcd.sh), and reads nothing else of the bucket; it asks first whether the latest exists,
    // listing that key alone.
    expect(await may(cp, "s3:GetObject", latest)).to.equal(true);
    expect(await may(cp, "s3:GetObject", object)).to.equal(true);
    expect(await may(cp, "s3:GetObject", `arn:aws:s3:::${bucket}/elsewhere/x`)).to.equal(false);
    const list = (role: typeof cp, prefix?: string) =>
      may(role, "s3:ListBucket", `arn:aws:s3:::${bucket}`, prefix === undefined ? {} : { "s3:prefix": prefix });
    expect(await list(cp, LATEST_SNAPSHOT_KEY)).to.equal(true);
    for (const prefix of [undefined, "", "etcd/", "latest/"]) expect(await list(cp, prefix), prefix).to.equal(false);
    expect(await list(node, LATEST_SNAPSHOT_KEY)).to.equal(false);
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${bucket}/latest/other.db`)).to.equal(false);
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${bucket}/elsewhere/x`)).to.equal(false);
    const other = backupBucketName("other.k8s.local", AT.accountId, REGION);
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${other}/etcd/x.db`)).to.equal(false);
  });

  it("completes and extends lifecycle actions of the cluster's groups only, and never scales them", async () => {
    expect(await may(cp, "autoscaling:CompleteLifecycleAction", GROUP, controlPlaneGroup("dev.k8s.local"))).to.equal(
      true,
    );
    expect(await may(cp, "autoscaling:CompleteLifecycleAction", GROUP, controlPlaneGroup("other.k8s.local"))).to.equal(
      false,
    );
    // The state's own statement holds control-plane groups only; a worker group's hooks are the termination
    // handler's (its own statement).
    expect(await may(state, "autoscaling:CompleteLifecycleAction", GROUP, ours)).to.equal(false);
    expect(await may(cp, "autoscaling:DescribeAutoScalingInstances", "*")).to.equal(true);
    // A member that has not left keeps its instance: heartbeats, in this cluster's groups only.
    expect(
      await may(cp, "autoscaling:RecordLifecycleActionHeartbeat", GROUP, controlPlaneGroup("dev.k8s.local")),
    ).to.equal(true);
    expect(await may(cp, "autoscaling:RecordLifecycleActionHeartbeat", GROUP, theirs)).to.equal(false);
    expect(await may(state, "autoscaling:DescribeAutoScalingGroups", "*")).to.equal(false);
    expect(await may(cp, "autoscaling:SetDesiredCapacity", GROUP, ours)).to.equal(false);
  });

  it("marks instances of the cluster's control-plane groups unhealthy (a dead etcd member's), no other group's; workers cannot", async () => {
    expect(await may(cp, "autoscaling:SetInstanceHealth", GROUP, controlPlaneGroup("dev.k8s.local"))).to.equal(true);
    expect(await may(cp, "autoscaling:SetInstanceHealth", GROUP, controlPlaneGroup("other.k8s.local"))).to.equal(false);
    // A worker group of the same cluster (no control-plane role tag).
    expect(await may(state, "autoscaling:SetInstanceHealth", GROUP, ours)).to.equal(false);
    expect(await may(node, "autoscaling:SetInstanceHealth", GROUP, controlPlaneGroup("dev.k8s.local"))).to.equal(false);
  });

  it("counts snapshots in its cluster's CloudWatch namespace only; workers count nothing", async () => {
    const own = { "cloudwatch:namespace": "cilium-cluster/dev.k8s.local" };
    expect(await may(cp, "cloudwatch:PutMetricData", "*", own)).to.equal(true);
    expect(await may(cp, "cloudwatch:PutMetricData", "*", { "cloudwatch:namespace": "AWS/EC2" })).to.equal(false);
    // Another cluster's alarm is fed in its own namespace: this cluster's nodes cannot silence it.
    for (const namespace of ["cilium-cluster", "cilium-cluster/other.k8s.local"])
      expect(await may(cp, "cloudwatch:PutMetricData", "*", { "cloudwatch:namespace": namespace }), namespace).to.equal(
        false,
      );
    expect(await may(node, "cloudwatch:PutMetricData", "*", own)).to.equal(false);
  });

  it("finds the cluster's instances (departed members' addresses); workers do not", async () => {
    expect(await may(cp, "ec2:DescribeInstances", "*")).to.equal(true);
    expect(await may(node, "ec2:DescribeInstances", "*")).to.equal(false);
  });

  it("touches no volume and no DNS record: etcd is on the root volume, members are found by address", async () => {
    for (const [role, policy] of [
      ["control-plane state", state],
      ["workers", node],
    ] as const) {
      for (const resource of [VOLUME, INSTANCE])
        expect(await may(policy, "ec2:AttachVolume", resource, ours), `${role} ${resource}`).to.equal(false);
      expect(await may(policy, "ec2:DetachVolume", VOLUME, ours), role).to.equal(false);
      expect(await may(policy, "ec2:DescribeVolumes", "*"), role).to.equal(false);
      expect(await may(policy, "ec2:CreateTags", VOLUME, ours), role).to.equal(false);
      const zone = "arn:aws:route53:::hostedzone/Z0123456789ABCDEFGHIJ";
      expect(await may(policy, "route53:ChangeResourceRecordSets", zone), role).to.equal(false);
      expect(await may(policy, "route53:GetChange", "arn:aws:route53:::change/C0123456789"), role).to.equal(false);
    }
  });
});

// The control plane's state in IAM, simulated: only the control-plane role may create the init record,
// attach etcd volumes (the cluster's own only) and complete the termination hook of the cluster's groups.
import { expect } from "chai";
import { may } from "../iamSimulator";
import { AwsCoordinates, ClusterResourceIds, rolePolicy } from "../../components/iam/policies";
import { backupBucketName, LATEST_SNAPSHOT_KEY } from "../../components/controlPlane/backupBucket";
import { ETCD_MEMBER_TAG, ETCD_STATE_TAG } from "../../components/nodes/controlPlaneState";
import { validateConfig } from "../../spec/validation";
import { baseConfig, REGION } from "../fixtures";

const AT: AwsCoordinates = { partition: "aws", region: REGION, accountId: "000000000000" };
/** The cluster\'s private hosted zone, as Route53 names one. */
const IDS: ClusterResourceIds = { privateZoneId: "Z0123456789ABCDEFGHIJ" };
const spec = validateConfig(baseConfig(), REGION).spec;

const ours = { "aws:ResourceTag/KubernetesCluster": "dev.k8s.local" };
/** The cluster's etcd member volume: the cluster's tag and the member's (its zone). */
const ourMemberVolume = { ...ours, [`aws:ResourceTag/${ETCD_MEMBER_TAG}`]: "us-east-1a" };
const theirs = { "aws:ResourceTag/KubernetesCluster": "other.k8s.local" };
const VOLUME = "arn:aws:ec2:us-east-1:000000000000:volume/vol-0123456789abcdef0";
const INSTANCE = "arn:aws:ec2:us-east-1:000000000000:instance/i-0123456789abcdef0";
const GROUP =
  "arn:aws:autoscaling:us-east-1:000000000000:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/control-plane-us-east-1a.dev.k8s.local";
const record = (cluster: string) =>
  `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/control-plane/initialized-0123456789ab`;

describe("control-plane state IAM, simulated", () => {
  const cp = rolePolicy("control-plane", spec, AT, IDS);
  const node = rolePolicy("node", spec, AT, IDS);

  it("the control plane creates its own cluster's init record; workers cannot", async () => {
    expect(await may(cp, "ssm:PutParameter", record("dev.k8s.local"))).to.equal(true);
    expect(await may(cp, "ssm:GetParameter", record("dev.k8s.local"))).to.equal(true);
    expect(await may(cp, "ssm:PutParameter", record("other.k8s.local"))).to.equal(false);
    expect(
      await may(
        cp,
        "ssm:PutParameter",
        "arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/dev.k8s.local/control-plane/ca.key",
      ),
      "no overwriting the cluster's secrets",
    ).to.equal(false);
    expect(await may(node, "ssm:PutParameter", record("dev.k8s.local"))).to.equal(false);
  });

  it("attaches only the cluster's etcd volumes to the cluster's instances", async () => {
    expect(await may(cp, "ec2:AttachVolume", VOLUME, ours)).to.equal(true);
    expect(await may(cp, "ec2:AttachVolume", INSTANCE, ours)).to.equal(true);
    expect(await may(cp, "ec2:AttachVolume", VOLUME, theirs)).to.equal(false);
    expect(await may(cp, "ec2:AttachVolume", VOLUME)).to.equal(false);
    expect(await may(cp, "ec2:DetachVolume", VOLUME, ours)).to.equal(false);
    expect(await may(cp, "ec2:DescribeVolumes", "*")).to.equal(true);
    // Before a restore: the cluster's control-plane instances whose etcd is on their root disk.
    expect(await may(cp, "ec2:DescribeInstances", "*")).to.equal(true);
    expect(await may(node, "ec2:AttachVolume", VOLUME, ours)).to.equal(false);
  });

  it("tags only the cluster's etcd volumes, only with their state tag and its values", async () => {
    const tagging = (value: string, keys = [ETCD_STATE_TAG], cluster: Record<string, string> = ourMemberVolume) => ({
      ...cluster,
      "aws:TagKeys": keys,
      [`aws:RequestTag/${ETCD_STATE_TAG}`]: value,
    });
    for (const value of ["member", "removed", "joining"]) {
      expect(await may(cp, "ec2:CreateTags", VOLUME, tagging(value)), value).to.equal(true);
      expect(await may(node, "ec2:CreateTags", VOLUME, tagging(value)), value).to.equal(false);
    }
    expect(await may(cp, "ec2:CreateTags", VOLUME, tagging("member", [ETCD_STATE_TAG], theirs))).to.equal(false);
    expect(await may(cp, "ec2:CreateTags", VOLUME, tagging("anything"))).to.equal(false);
    // A volume of the cluster that is no etcd member's (an EBS CSI volume carries KubernetesCluster too).
    expect(await may(cp, "ec2:CreateTags", VOLUME, tagging("member", [ETCD_STATE_TAG], ours)), "CSI").to.equal(false);
    // Not the cluster's tag (a volume moved to another cluster) nor the member's zone.
    for (const key of ["KubernetesCluster", ETCD_MEMBER_TAG])
      expect(await may(cp, "ec2:CreateTags", VOLUME, tagging("member", [ETCD_STATE_TAG, key])), key).to.equal(false);
    expect(await may(cp, "ec2:CreateTags", INSTANCE, tagging("member"))).to.equal(false);
  });

  it("only the control plane writes backups, into its own cluster's bucket, and deletes none", async () => {
    const bucket = backupBucketName("dev.k8s.local", AT.accountId, REGION);
    const object = `arn:aws:s3:::${bucket}/etcd/20260101T000000Z.db`;
    expect(await may(cp, "s3:PutObject", object)).to.equal(true);
    expect(await may(cp, "s3:GetObject", object)).to.equal(true);
    expect(await may(cp, "s3:ListBucket", `arn:aws:s3:::${bucket}`)).to.equal(true);
    expect(await may(cp, "s3:DeleteObject", object)).to.equal(false);
    // The fixed key of the newest snapshot, beside those named by time.
    const latest = `arn:aws:s3:::${bucket}/${LATEST_SNAPSHOT_KEY}`;
    for (const action of ["s3:PutObject", "s3:GetObject"]) {
      expect(await may(cp, action, latest), action).to.equal(true);
      expect(await may(node, action, latest), action).to.equal(false);
    }
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${bucket}/latest/other.db`)).to.equal(false);
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${bucket}/elsewhere/x`)).to.equal(false);
    const other = backupBucketName("other.k8s.local", AT.accountId, REGION);
    expect(await may(cp, "s3:PutObject", `arn:aws:s3:::${other}/etcd/x.db`)).to.equal(false);
    for (const action of ["s3:PutObject", "s3:GetObject"])
      expect(await may(node, action, object), action).to.equal(false);
    expect(await may(node, "s3:ListBucket", `arn:aws:s3:::${bucket}`)).to.equal(false);
  });

  it("completes lifecycle actions of the cluster's groups only", async () => {
    expect(await may(cp, "autoscaling:CompleteLifecycleAction", GROUP, ours)).to.equal(true);
    expect(await may(cp, "autoscaling:CompleteLifecycleAction", GROUP, theirs)).to.equal(false);
    expect(await may(node, "autoscaling:CompleteLifecycleAction", GROUP, ours)).to.equal(false);
    expect(await may(cp, "autoscaling:RecordLifecycleActionHeartbeat", GROUP, ours)).to.equal(true);
    expect(await may(cp, "autoscaling:RecordLifecycleActionHeartbeat", GROUP, theirs)).to.equal(false);
  });

  it("claims only its members' names in the cluster's zone: UPSERTs of A records, nothing else", async () => {
    const zone = `arn:aws:route53:::hostedzone/${IDS.privateZoneId}`;
    const batch = (names: string[], types = names.map(() => "A"), actions = names.map(() => "UPSERT")) => ({
      "route53:ChangeResourceRecordSetsNormalizedRecordNames": names,
      "route53:ChangeResourceRecordSetsRecordTypes": types,
      "route53:ChangeResourceRecordSetsActions": actions,
    });
    const member = "etcd-us-east-1a.internal.dev.k8s.local";
    const change = "route53:ChangeResourceRecordSets";
    expect(await may(cp, change, zone, batch([member]))).to.equal(true);
    expect(await may(cp, change, "arn:aws:route53:::hostedzone/ZOTHERZONE", batch([member])), "another zone").to.equal(
      false,
    );
    expect(await may(cp, change, zone, batch(["api.internal.dev.k8s.local"])), "the API's name").to.equal(false);
    expect(await may(cp, change, zone, batch([member, "api.internal.dev.k8s.local"])), "one foreign change").to.equal(
      false,
    );
    expect(await may(cp, change, zone, batch([member], ["CNAME"])), "another type").to.equal(false);
    expect(await may(cp, change, zone, batch([member], ["A"], ["DELETE"])), "a delete").to.equal(false);
    expect(await may(cp, change, zone, batch([member], ["A"], ["CREATE"])), "a create").to.equal(false);
    expect(await may(cp, change, zone), "a request without its names").to.equal(false);
    expect(await may(node, change, zone, batch([member])), "workers").to.equal(false);
    expect(await may(cp, "route53:GetChange", "arn:aws:route53:::change/C0123456789")).to.equal(true);
    expect(await may(node, "route53:GetChange", "arn:aws:route53:::change/C0123456789")).to.equal(false);
  });

  it("finds the instances behind members' old addresses; workers do not", async () => {
    expect(await may(cp, "ec2:DescribeInstances", "*")).to.equal(true);
    expect(await may(node, "ec2:DescribeInstances", "*")).to.equal(false);
  });
});

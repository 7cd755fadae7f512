/**
 * The control plane's state (etcd membership on termination, etcd volumes, backups, the init record): on the
 * control-plane role only.
 */
import type { ClusterSpec } from "../../../spec/types";
import {
  ETCD_MEMBER_TAG,
  ETCD_STATE_TAG,
  ETCD_STATES,
  etcdMembers,
  INIT_RECORD_PARAMETER,
} from "../../nodes/controlPlaneState";
import { backupBucketName, LATEST_SNAPSHOT_KEY, SNAPSHOT_PREFIX } from "../../controlPlane/backupBucket";
import { parameterPrefix } from "../../secrets/paths";
import type { Statement } from "../policyDocument";
import type { AwsCoordinates, ClusterResourceIds, StatementSource } from "../statementSource";

const clusterTag = (spec: ClusterSpec) => ({
  StringEquals: { "aws:ResourceTag/KubernetesCluster": spec.clusterName },
});

/**
 * Route53's condition keys of ChangeResourceRecordSets, one value per change of the batch: ForAllValues
 * holds when every change is an UPSERT of an A record named for a member. ForAllValues also holds for a
 * key with no values, so the names key must be present (Null false).
 */
function memberNameClaim(spec: ClusterSpec, at: AwsCoordinates, ids: ClusterResourceIds): Statement {
  const names = "route53:ChangeResourceRecordSetsNormalizedRecordNames";
  return {
    // Before etcd starts, a control-plane node points its member's name at itself (etcd-dns.sh).
    Sid: "ControlPlaneStateMemberNameClaim",
    Effect: "Allow",
    Action: ["route53:ChangeResourceRecordSets"],
    Resource: `arn:${at.partition}:route53:::hostedzone/${ids.privateZoneId}`,
    Condition: {
      "ForAllValues:StringEquals": {
        // Route53 normalises names to lowercase, without the trailing dot.
        [names]: etcdMembers(spec).map((m) => m.name.toLowerCase()),
        "route53:ChangeResourceRecordSetsRecordTypes": ["A"],
        "route53:ChangeResourceRecordSetsActions": ["UPSERT"],
      },
      Null: { [names]: "false" },
    },
  };
}

function controlPlaneStateStatements(spec: ClusterSpec, at: AwsCoordinates, ids: ClusterResourceIds): Statement[] {
  const ssm = `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter`;
  const bucket = `arn:${at.partition}:s3:::${backupBucketName(spec.clusterName, at.accountId, at.region)}`;
  return [
    memberNameClaim(spec, at, ids),
    {
      // ... and waits until Route53 has the change everywhere (change ids are not known in advance).
      Sid: "ControlPlaneStateMemberNameSync",
      Effect: "Allow",
      Action: ["route53:GetChange"],
      Resource: `arn:${at.partition}:route53:::change/*`,
    },
    {
      // The etcd-backup timer uploads snapshots (named by time, and again under the fixed key); a restoring
      // node lists and reads them. Nothing deletes them but the bucket's lifecycle rules.
      Sid: "ControlPlaneStateBackupsWrite",
      Effect: "Allow",
      Action: ["s3:PutObject", "s3:GetObject"],
      Resource: [`${bucket}/${SNAPSHOT_PREFIX}*`, `${bucket}/${LATEST_SNAPSHOT_KEY}`],
    },
    {
      Sid: "ControlPlaneStateBackupsList",
      Effect: "Allow",
      Action: ["s3:ListBucket"],
      Resource: bucket,
    },
    {
      // The node that creates the cluster creates the init record (without overwrite: the lock); the
      // secrets statement already lets control-plane nodes read it.
      Sid: "ControlPlaneStateInitRecordCreate",
      Effect: "Allow",
      Action: ["ssm:PutParameter"],
      Resource: `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${INIT_RECORD_PARAMETER}-*`,
    },
    {
      // A control-plane node finds its member's etcd volume by tags (describe calls take no resource scope).
      Sid: "ControlPlaneStateVolumeDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeVolumes"],
      Resource: "*",
    },
    {
      // A node that joined finds whether the instance behind a member's old address still exists, and whether
      // a control-plane instance still runs in a dropped zone (etcd_remove_departed); a node about to restore
      // looks for control-plane instances whose etcd is on their root disk (other_control_plane_running).
      // Describe calls take no resource scope.
      Sid: "ControlPlaneStateMembersDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeInstances"],
      Resource: "*",
    },
    {
      // ... and attaches it: both the volume and the instance must carry the cluster's tag.
      Sid: "ControlPlaneStateVolumeAttach",
      Effect: "Allow",
      Action: ["ec2:AttachVolume"],
      Resource: [
        `arn:${at.partition}:ec2:*:${at.accountId}:volume/*`,
        `arn:${at.partition}:ec2:*:${at.accountId}:instance/*`,
      ],
      Condition: clusterTag(spec),
    },
    {
      // ... and records on it what its data is (the state tag): that one tag, with one of its values, on the
      // cluster's etcd volumes only (the member tag: the cluster's EBS CSI volumes carry its KubernetesCluster
      // tag too).
      Sid: "ControlPlaneStateVolumeStateTag",
      Effect: "Allow",
      Action: ["ec2:CreateTags"],
      Resource: `arn:${at.partition}:ec2:*:${at.accountId}:volume/*`,
      Condition: {
        StringEquals: {
          ...clusterTag(spec).StringEquals,
          [`aws:RequestTag/${ETCD_STATE_TAG}`]: [...ETCD_STATES],
        },
        "ForAllValues:StringEquals": { "aws:TagKeys": [ETCD_STATE_TAG] },
        Null: { [`aws:ResourceTag/${ETCD_MEMBER_TAG}`]: "false" },
      },
    },
    {
      // The etcd-lifecycle service finds its group and whether the group is scaled down (no resource scope).
      Sid: "ControlPlaneStateLifecycleDescribe",
      Effect: "Allow",
      Action: ["autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances"],
      Resource: "*",
    },
    {
      Sid: "ControlPlaneStateLifecycleComplete",
      Effect: "Allow",
      Action: ["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat"],
      Resource: "*",
      Condition: clusterTag(spec),
    },
  ];
}

export const controlPlaneState: StatementSource = {
  sidPrefix: "ControlPlaneState",
  statements: (role, spec, at, ids) => (role === "control-plane" ? controlPlaneStateStatements(spec, at, ids) : []),
};

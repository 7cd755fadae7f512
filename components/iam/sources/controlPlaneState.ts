/**
 * The control plane's state (etcd membership on termination, etcd volumes, backups, the init record): on the
 * control-plane role only.
 */
import type { ClusterSpec } from "../../../spec/types";
import { ETCD_STATE_TAG, ETCD_STATES, INIT_RECORD_PARAMETER } from "../../nodes/controlPlaneState";
import { backupBucketName, LATEST_SNAPSHOT_KEY, SNAPSHOT_PREFIX } from "../../controlPlane/backupBucket";
import { parameterPrefix } from "../../secrets/paths";
import type { Statement } from "../policyDocument";
import type { AwsCoordinates, StatementSource } from "../statementSource";

const clusterTag = (spec: ClusterSpec) => ({
  StringEquals: { "aws:ResourceTag/KubernetesCluster": spec.clusterName },
});

function controlPlaneStateStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const ssm = `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter`;
  const bucket = `arn:${at.partition}:s3:::${backupBucketName(spec.clusterName, at.accountId, at.region)}`;
  return [
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
      // cluster's volumes only.
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
    {
      // A node about to restore a snapshot first looks for control-plane instances of the cluster whose
      // etcd is on their root disk (cluster-state.sh other_control_plane_running; no resource scope).
      Sid: "ControlPlaneStateInstanceDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeInstances"],
      Resource: "*",
    },
  ];
}

export const controlPlaneState: StatementSource = {
  sidPrefix: "ControlPlaneState",
  statements: (role, spec, at) => (role === "control-plane" ? controlPlaneStateStatements(spec, at) : []),
};

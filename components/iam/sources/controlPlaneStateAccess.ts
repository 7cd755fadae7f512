/**
 * The control plane's state (the init record, etcd snapshots, members leaving and departed members removed):
 * on the control-plane role only.
 */
import { CLUSTER_TAG } from "../../tags";
import type { ClusterSpec } from "../../../config/types";
import { INIT_RECORD_PARAMETER } from "../../nodes/controlPlaneNames";
import { SNAPSHOT_METRIC } from "../../controlPlane/backupAlarm";
import { backupBucketName, LATEST_SNAPSHOT_KEY, SNAPSHOT_PREFIX } from "../../controlPlane/backupBucket";
import { parameterPrefix } from "../../secrets/paths";
import type { Statement } from "../policyDocument";
import type { AwsCoordinates, StatementSource } from "../statementSource";

function controlPlaneStateStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const ssm = `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter`;
  const bucket = `arn:${at.partition}:s3:::${backupBucketName(spec.clusterName, at.accountId, at.region)}`;
  return [
    {
      // The etcd-backup timer uploads snapshots (named by time, and again under the fixed key). Nothing on
      // a node reads or deletes them: restore is by hand, retention is the bucket's lifecycle rules.
      Sid: "ControlPlaneStateBackupsWrite",
      Effect: "Allow",
      Action: ["s3:PutObject"],
      Resource: [`${bucket}/${SNAPSHOT_PREFIX}*`, `${bucket}/${LATEST_SNAPSHOT_KEY}`],
    },
    {
      // ... and counts each upload for the backups' alarm, in the program's namespace only.
      Sid: "ControlPlaneStateBackupsCount",
      Effect: "Allow",
      Action: ["cloudwatch:PutMetricData"],
      Resource: "*",
      Condition: { StringEquals: { "cloudwatch:namespace": SNAPSHOT_METRIC.namespace } },
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
      // A joining node finds the control-plane instances that still exist: an etcd member at no such
      // instance's address has departed (etcd_remove_members departed). Describe calls take no resource scope.
      Sid: "ControlPlaneStateMembersDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeInstances"],
      Resource: "*",
    },
    {
      // The etcd-leave service finds its group when the instance terminates (no resource scope) ...
      Sid: "ControlPlaneStateLifecycleDescribe",
      Effect: "Allow",
      Action: ["autoscaling:DescribeAutoScalingInstances"],
      Resource: "*",
    },
    {
      // ... keeps the instance while the member has not left, and lets the termination go on once it has.
      Sid: "ControlPlaneStateLifecycleComplete",
      Effect: "Allow",
      Action: ["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat"],
      Resource: "*",
      Condition: { StringEquals: { [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName } },
    },
  ];
}

export const controlPlaneState: StatementSource = {
  sidPrefix: "ControlPlaneState",
  statements: (role, spec, at) => (role === "control-plane" ? controlPlaneStateStatements(spec, at) : []),
};

/**
 * The control plane's state (the init record, etcd snapshots and their restore, members leaving,
 * departed and dead members removed): on the control-plane role only.
 */
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import type { ClusterSpec } from "../../config/types";
import {
  CLUSTER_CA_PARAMETER,
  ENCRYPTION_KEYS_PARAMETER,
  INIT_RECORD_PARAMETER,
  LATEST_SNAPSHOT_KEY,
  RESTORE_REQUEST_PARAMETER,
  SHARED_PKI_PARAMETER,
  SNAPSHOT_PREFIX,
} from "../nodes/controlPlaneNames";
import { snapshotMetricNamespace } from "./backupAlarm";
import { backupBucketName } from "./backupBucket";
import { parameterKeyStatement, parameterPrefix } from "../nodes/secretPaths";
import type { Statement } from "../iam/policyDocument";
import type { AwsCoordinates, StatementSource } from "../iam/statementSource";

function controlPlaneStateStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const ssm = `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter`;
  const bucket = `arn:${at.partition}:s3:::${backupBucketName(spec.clusterName, at.accountId, at.region)}`;
  const encryptionKeys = `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${ENCRYPTION_KEYS_PARAMETER}-*`;
  const sharedPki = `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${SHARED_PKI_PARAMETER}-*`;
  const clusterCa = `${ssm}${parameterPrefix(spec.clusterName, "node")}${CLUSTER_CA_PARAMETER}-*`;
  const initRecords = `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${INIT_RECORD_PARAMETER}-*`;
  return [
    {
      // The etcd-backup timer uploads snapshots (named by time, and again under the fixed key). Nothing on
      // a node deletes them: retention is the bucket's lifecycle rules.
      Sid: "ControlPlaneStateBackupsWrite",
      Effect: "Allow",
      Action: ["s3:PutObject"],
      Resource: [`${bucket}/${SNAPSHOT_PREFIX}*`, `${bucket}/${LATEST_SNAPSHOT_KEY}`],
    },
    {
      // A node that creates the cluster again once every member is lost restores the latest snapshot, or the
      // one a restore request names, one of the timer's (etcd_restore): a control-plane node holds the same
      // data in its etcd anyway.
      Sid: "ControlPlaneStateSnapshotRead",
      Effect: "Allow",
      Action: ["s3:GetObject"],
      Resource: [`${bucket}/${LATEST_SNAPSHOT_KEY}`, `${bucket}/${SNAPSHOT_PREFIX}*`],
    },
    {
      // ... and asks first whether it exists, by listing that one key (latest_snapshot_exists).
      Sid: "ControlPlaneStateLatestSnapshotList",
      Effect: "Allow",
      Action: ["s3:ListBucket"],
      Resource: bucket,
      Condition: { StringEquals: { "s3:prefix": LATEST_SNAPSHOT_KEY } },
    },
    {
      // ... and counts each upload for the backups' alarm, in its cluster's namespace only.
      Sid: "ControlPlaneStateBackupsCount",
      Effect: "Allow",
      Action: ["cloudwatch:PutMetricData"],
      Resource: "*",
      Condition: { StringEquals: { "cloudwatch:namespace": snapshotMetricNamespace(spec.clusterName) } },
    },
    {
      // The node that creates the cluster creates the init record (without overwrite: the lock), or takes
      // over a stale one (bootstrap/control-plane.sh); the secrets statement already lets control-plane nodes
      // read it.
      Sid: "ControlPlaneStateInitRecordCreate",
      Effect: "Allow",
      Action: ["ssm:PutParameter"],
      Resource: initRecords,
    },
    {
      // The node that takes the init record over to restore the snapshot a restore request names deletes the
      // request once the cluster runs on it (kubeadm_init): a later loss of every member restores the latest.
      Sid: "ControlPlaneStateRestoreRequestDelete",
      Effect: "Allow",
      Action: ["ssm:DeleteParameter"],
      Resource: `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${RESTORE_REQUEST_PARAMETER}-*`,
    },
    {
      // The first control-plane node creates the Secrets encryption keys (without overwrite), and a key
      // rotation rewrites them (bootstrap/encryption.sh); the secrets statement lets control-plane nodes read them.
      Sid: "ControlPlaneStateEncryptionKeysWrite",
      Effect: "Allow",
      Action: ["ssm:PutParameter"],
      Resource: encryptionKeys,
    },
    // SSM encrypts the keys it stores with the cluster's key.
    parameterKeyStatement(
      "ControlPlaneStateEncryptionKeysEncrypt",
      "kms:Encrypt",
      spec.clusterName,
      at,
      encryptionKeys,
    ),
    {
      // The node that creates the cluster stores the keys its kubeadm init made, and then the CA's certificate
      // (a String, under no key), for the next control-plane nodes, the workers and pulumi up
      // (bootstrap/control-plane.sh); the secrets statement lets nodes read them.
      Sid: "ControlPlaneStateSharedPkiWrite",
      Effect: "Allow",
      Action: ["ssm:PutParameter"],
      Resource: [sharedPki, clusterCa],
    },
    parameterKeyStatement("ControlPlaneStateSharedPkiEncrypt", "kms:Encrypt", spec.clusterName, at, sharedPki),
    {
      // A joining node and the etcd leader find the control-plane instances that still exist: an etcd member
      // at no such instance's address has departed (etcd_remove_members, reconcile_etcd_members), and an init
      // record whose owner is gone may be stale; the kubelets' serving-certificate approver reads a node's
      // instance (bootstrap/kubelet-serving.sh). Describe calls take no resource scope.
      Sid: "ControlPlaneStateMembersDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeInstances"],
      Resource: "*",
    },
    {
      // The etcd-leave service finds its group when the instance terminates, and a node about to create the
      // cluster again whether another control-plane instance is InService (no resource scope) ...
      Sid: "ControlPlaneStateLifecycleDescribe",
      Effect: "Allow",
      Action: ["autoscaling:DescribeAutoScalingInstances"],
      Resource: "*",
    },
    {
      // ... keeps the instance while the member has not left, and lets the termination go on once it has;
      // a joining node's launch hook gets heartbeats while kubeadm join runs (during_member_join).
      Sid: "ControlPlaneStateLifecycleComplete",
      Effect: "Allow",
      Action: ["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat"],
      Resource: "*",
      // Control-plane groups only: the etcd hook is theirs.
      Condition: {
        StringEquals: {
          [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName,
          [`aws:ResourceTag/${ROLE_TAGS["control-plane"]}`]: "1",
        },
      },
    },
    {
      // The etcd leader marks the instance of a member that stopped answering unhealthy, so Auto Scaling replaces
      // it (reconcile_etcd_members); control-plane groups only, as above.
      Sid: "ControlPlaneStateMemberReplace",
      Effect: "Allow",
      Action: ["autoscaling:SetInstanceHealth"],
      Resource: "*",
      Condition: {
        StringEquals: {
          [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName,
          [`aws:ResourceTag/${ROLE_TAGS["control-plane"]}`]: "1",
        },
      },
    },
  ];
}

export const controlPlaneState: StatementSource = {
  sidPrefix: "ControlPlaneState",
  statements: (role, spec, at) => (role === "control-plane" ? controlPlaneStateStatements(spec, at) : []),
};

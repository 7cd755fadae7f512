/**
 * The control plane's state: departed and dead members, the termination hook, backups, the init record and the
 * restore of the latest snapshot; its keys are the backups' (`controlPlane.backup*`) and the acknowledgement
 * a one-node control plane needs (`controlPlane.acceptSingleNodeLoss`).
 */
import type { Feature } from "../feature";
import { backupRestorePrincipalErrors, singleNodeLossErrors } from "./controlPlaneStateRules";
import { controlPlaneState } from "./controlPlaneStateAccess";

export const controlPlaneStateFeature: Feature = {
  name: "control-plane-state",
  config: {
    under: "controlPlane",
    keys: {
      acceptSingleNodeLoss: {
        kind: "boolean",
        default: false,
        description:
          "With `controlPlane.count: 1`, required: that the one control-plane instance's unplanned loss (a failed " +
          "status check, a stop, a scheduled retirement) costs the etcd writes since the last snapshot, up to " +
          "`controlPlane.backupIntervalMinutes`, and the API until its replacement has restored that snapshot " +
          "(docs/operations.md). A termination through Auto Scaling saves a final snapshot first. With 3 " +
          "control-plane nodes nothing is lost.",
      },
      etcdMemberUnhealthyMinutes: {
        kind: "integer",
        default: 5,
        minimum: 1,
        maximum: 60,
        description:
          "Minutes an etcd member may not answer while its control-plane instance runs before the etcd leader " +
          "removes it and has Auto Scaling replace the instance (docs/operations.md). A member whose instance is " +
          "gone is removed at once. Longer than the member's restarts take (a reboot, a certificate renewal).",
      },
      backupIntervalMinutes: {
        kind: "integer",
        default: 15,
        minimum: 5,
        maximum: 1440,
        description:
          "Minutes between etcd snapshots the control plane uploads to the cluster's backup bucket (kOps: 15).",
      },
      backupRetentionDays: {
        kind: "integer",
        default: 30,
        minimum: 1,
        maximum: 3650,
        description:
          "Days the backup bucket keeps each etcd snapshot named by time (etcd/<UTC time>.db): it expires then (the versioned bucket puts a delete marker over it) and its data is deleted a day later. The newest snapshot (latest/etcd.db) never expires, whatever its age, and the 3 snapshots before it stay whatever their age.",
      },
      backupRestorePrincipals: {
        kind: "array",
        default: [],
        items: { kind: "string", description: "An IAM role or user ARN." },
        description:
          "IAM roles or users, besides the control plane, that may read and decrypt the etcd snapshots (to restore " +
          "a cluster, docs/operations.md). Snapshots hold every Secret of the cluster, so no one else may: the " +
          "bucket policy denies their reads to every other principal, and the cluster's KMS key decrypts them " +
          "only for these and the control-plane role. The roles must exist: KMS refuses a key policy naming one " +
          "that does not.",
        rules: ["IAM role or user ARNs (`arn:<partition>:iam::<account>:role/<name>` or `:user/<name>`), unique"],
      },
    },
    rules: [backupRestorePrincipalErrors, singleNodeLossErrors],
  },
  rights: [controlPlaneState],
};

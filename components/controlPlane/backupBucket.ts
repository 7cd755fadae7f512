/**
 * The etcd backup bucket's name and settings: pure, so the IAM statements, the node's user data and the
 * bucket itself agree. One bucket per cluster, account and region (bucket names are global).
 */
import { awsName } from "../naming";
import { LATEST_SNAPSHOT_KEY, SNAPSHOT_PREFIX } from "../nodes/controlPlaneNames";

/** Replaced versions of the fixed key S3 keeps beyond the retention period (S3 allows at most 100). */
export const LATEST_KEPT_VERSIONS = 3;

export function backupBucketName(clusterName: string, accountId: string, region: string): string {
  return awsName(`etcd-backups-${clusterName}-${accountId}-${region}`.toLowerCase(), 63, /[^a-z0-9-]/g);
}

/** The bucket's ARN, known before the bucket exists: the key policy names it. */
export function backupBucketArn(clusterName: string, at: { partition: string; accountId: string; region: string }) {
  return `arn:${at.partition}:s3:::${backupBucketName(clusterName, at.accountId, at.region)}`;
}

/**
 * The lifecycle rules, for a versioned bucket, where expiring a current version only adds a delete marker
 * over it (the data becomes a noncurrent version) and data goes only when a noncurrent version expires.
 * Snapshots named by time: the current version expires after the retention period and its data a day later
 * (S3 then removes the delete marker left alone). The fixed key's current version never expires; of its
 * replaced versions S3 keeps the newest LATEST_KEPT_VERSIONS (`NewerNoncurrentVersions`) whatever their age
 * and deletes the others a day after they are replaced: the snapshots named by time cover the retention
 * period, so keeping each replaced version that long would only double the bucket's size. So however long
 * the control plane was down, the newest snapshot and the few before it are still there.
 */
export function backupLifecycleRules(retentionDays: number) {
  const abortIncompleteMultipartUpload = { daysAfterInitiation: 1 };
  return [
    {
      id: "etcd-snapshot-retention",
      status: "Enabled",
      filter: { prefix: SNAPSHOT_PREFIX },
      expiration: { days: retentionDays },
      noncurrentVersionExpiration: { noncurrentDays: 1 },
      abortIncompleteMultipartUpload,
    },
    {
      id: "etcd-latest-snapshot",
      status: "Enabled",
      filter: { prefix: LATEST_SNAPSHOT_KEY },
      noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: LATEST_KEPT_VERSIONS },
      abortIncompleteMultipartUpload,
    },
  ];
}

/** Who the bucket policy lets write and read snapshots, and the key they must be encrypted under. */
export interface BackupAccess {
  /** The control-plane role: the only writer, and a reader. */
  writerRoleArn: string;
  /** `controlPlane.backupRestorePrincipals`: readers besides the control plane. */
  restorePrincipals: readonly string[];
  /** The cluster's KMS key, the bucket's default encryption key. */
  keyArn: string;
}

/**
 * The bucket policy, over whatever IAM grants: no request without TLS; snapshots written by the control-plane
 * role (`aws:PrincipalArn`, the role's ARN for its sessions) and no one else, never under another key than
 * the cluster's (a request naming no key gets the bucket's default, the cluster's); read by the control plane
 * and the restore principals only, since a snapshot holds every Secret of the cluster; and no one deletes a
 * snapshot or a version of one: only the lifecycle rule, which bucket policies do not govern, removes them.
 * To empty the bucket by hand, delete this policy first (`aws s3api delete-bucket-policy`).
 */
export function backupBucketPolicy(bucketArn: string, access: BackupAccess) {
  const objects = `${bucketArn}/*`;
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "DenyInsecureTransport",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:*",
        Resource: [bucketArn, objects],
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      },
      {
        Sid: "DenyWritesButTheControlPlane",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:PutObject",
        Resource: objects,
        Condition: { ArnNotEquals: { "aws:PrincipalArn": access.writerRoleArn } },
      },
      {
        Sid: "DenyWritesUnderAnotherKey",
        Effect: "Deny",
        Principal: "*",
        Action: "s3:PutObject",
        Resource: objects,
        Condition: {
          Null: { "s3:x-amz-server-side-encryption": "false" },
          StringNotEquals: { "s3:x-amz-server-side-encryption-aws-kms-key-id": access.keyArn },
        },
      },
      {
        Sid: "DenyReadsButControlPlaneAndRestorers",
        Effect: "Deny",
        Principal: "*",
        Action: ["s3:GetObject", "s3:GetObjectVersion", "s3:GetObjectAttributes", "s3:GetObjectVersionAttributes"],
        Resource: objects,
        Condition: { ArnNotEquals: { "aws:PrincipalArn": [access.writerRoleArn, ...access.restorePrincipals] } },
      },
      {
        Sid: "DenySnapshotDeletion",
        Effect: "Deny",
        Principal: "*",
        Action: ["s3:DeleteObject", "s3:DeleteObjectVersion"],
        Resource: objects,
      },
    ],
  };
}

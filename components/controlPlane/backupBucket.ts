/**
 * The etcd backup bucket's name and settings: pure, so the IAM statements, the node's user data and the
 * bucket itself agree. One bucket per cluster, account and region (bucket names are global).
 */
import { awsName } from "../naming";

/** Where snapshots go in the bucket; only the control plane writes there. */
export const SNAPSHOT_PREFIX = "etcd/";

export function backupBucketName(clusterName: string, accountId: string, region: string): string {
  return awsName(`etcd-backups-${clusterName}-${accountId}-${region}`.toLowerCase(), 63, /[^a-z0-9-]/g);
}

/** The lifecycle rule: snapshots and their replaced versions expire after the retention period. */
export function backupLifecycleRules(retentionDays: number) {
  return [
    {
      id: "etcd-snapshot-retention",
      status: "Enabled",
      filter: { prefix: SNAPSHOT_PREFIX },
      expiration: { days: retentionDays },
      noncurrentVersionExpiration: { noncurrentDays: retentionDays },
      abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
    },
  ];
}

/**
 * The bucket policy, over whatever IAM grants: no request without TLS; snapshots written by the control-plane
 * role (`aws:PrincipalArn`, the role's ARN for its sessions) and no one else; and no one deletes a snapshot
 * or a version of one: only the lifecycle rule, which bucket policies do not govern, removes them. To empty
 * the bucket by hand, delete this policy first (`aws s3api delete-bucket-policy`).
 */
export function backupBucketPolicy(bucketArn: string, writerRoleArn: string) {
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
        Condition: { ArnNotEquals: { "aws:PrincipalArn": writerRoleArn } },
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

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

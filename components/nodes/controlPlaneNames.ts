/** The init record's name below the control plane's SSM prefix, before the cluster's id (bootstrap/control-plane.sh). */
export const INIT_RECORD_PARAMETER = "initialized";
/**
 * The restore request's name below the control plane's SSM prefix, before the cluster's id: where `npm run
 * restore-snapshot` names the snapshot a control plane that lost every member restores instead of the latest.
 * The node that takes the init record over reads it, and deletes it once the cluster runs on that snapshot
 * (bootstrap/control-plane.sh). Not below the init record's name, which every control-plane node may write.
 */
export const RESTORE_REQUEST_PARAMETER = "restore-request";
/** The Secrets encryption keys' name below the control plane's SSM prefix, before the cluster's id (bootstrap/encryption.sh). */
export const ENCRYPTION_KEYS_PARAMETER = "encryption-keys";
/**
 * The control plane's shared keys' folder below the control plane's SSM prefix, before the cluster's id: a
 * parameter per file, by its path below kubeadm's pki directory (bootstrap/control-plane.sh).
 */
export const SHARED_PKI_PARAMETER = "pki";
/** The cluster CA certificate's name below the node SSM prefix, before the cluster's id (bootstrap/control-plane.sh). */
export const CLUSTER_CA_PARAMETER = "cluster-ca";
/**
 * The cluster's shared keys, by path below kubeadm's pki directory, in the order the node that created the
 * cluster stores them; the CA's certificate last, as its own parameter after them says every one is stored.
 */
export const SHARED_PKI_FILES = [
  "ca.key",
  "front-proxy-ca.key",
  "front-proxy-ca.crt",
  "etcd/ca.key",
  "etcd/ca.crt",
  "sa.key",
  "sa.pub",
  "ca.crt",
];

/**
 * The metric the leader puts after each upload: the prefix of its namespace, its name, and its one dimension.
 * Each cluster has a namespace of its own (snapshotMetricNamespace), which is what IAM can scope
 * `PutMetricData` to: with a shared one, a cluster's nodes could feed another cluster's alarm.
 */
export const SNAPSHOT_METRIC = {
  namespacePrefix: "cilium-cluster",
  name: "EtcdSnapshotsUploaded",
  dimension: "ClusterName",
} as const;

/** Where snapshots go in the bucket, named by time (`etcd/<UTC yyyymmddThhmmssZ>.db`); only the control plane writes there. */
export const SNAPSHOT_PREFIX = "etcd/";
/** The keys of those snapshots, which a restore request may name (an extended regular expression, bash's too). */
export const SNAPSHOT_KEY_PATTERN = `^${SNAPSHOT_PREFIX}[0-9]{8}T[0-9]{6}Z[.]db$`;

/**
 * The newest snapshot again, under a fixed key (etcd-backup.sh's etcd_latest_key): each upload replaces its
 * current version, which never expires, so an outage longer than the retention period still leaves one.
 */
export const LATEST_SNAPSHOT_KEY = "latest/etcd.db";

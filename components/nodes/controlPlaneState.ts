/**
 * Names of the control plane's state that the program and the control-plane nodes share: the init record's
 * SSM parameter (bootstrap/control-plane.sh) and the termination hook a node waits in while its etcd member
 * leaves.
 */

/** The Auto Scaling termination hook of control-plane groups (etcdLifecycleHook.ts). */
export const ETCD_LIFECYCLE_HOOK = "etcd-member";

/** The init record's name below the control plane's SSM prefix, before the cluster's id. */
export const INIT_RECORD_PARAMETER = "initialized";

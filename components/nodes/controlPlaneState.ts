/**
 * The node side of the control plane's state (etcd membership, its volume, backups): the modules and systemd
 * units of the control-plane tools bundle. The bundle reaches a node as an SSM parameter, not in user data:
 * gzipped beside the user data it would fit today (about 9.3 of the 12 KB budget instead of 6.3), but it would
 * halve the control plane's headroom for the bootstrap's own growth. The user data carries its SHA-256, checks
 * it and sources the bundle (bootstrap/control-plane-tools.sh), so the bootstrap's later steps call its
 * functions; a new bundle rolls the control plane either way.
 */
import type { ClusterSpec } from "../../spec/types";
import { instanceGroups } from "./instanceGroups";

/** Bootstrap modules of the tools bundle, files under bootstrap/, in the order the bundle holds them. */
export const TOOLS_MODULES = [
  "lib",
  "cluster-state",
  "etcd-members",
  "etcd-health",
  "etcd-dns",
  "etcd-lifecycle",
  "etcd-volume",
  "etcd-backup",
] as const;

/** systemd units (files under bootstrap/units/) the bundle installs (`install_units`). */
export const TOOLS_UNITS = [
  "etcd-lifecycle.service",
  "etcd-backup.service",
  "etcd-backup.timer",
  "etcd-name.service",
  "etcd-name.timer",
] as const;

/** Where a control-plane node keeps the bundle; units run it as `/bin/bash <path> FUNCTION ARGS...`. */
export const TOOLS_PATH = "/usr/local/lib/cilium-cluster/control-plane-tools";

/** The bundle's parameter name below the control plane's SSM prefix. */
export const TOOLS_PARAMETER = "control-plane-tools";

/** The Auto Scaling termination hook of control-plane groups; units/etcd-lifecycle.service names it. */
export const ETCD_LIFECYCLE_HOOK = "etcd-member";

/** The init record's name below the control plane's SSM prefix, before the cluster's id. */
export const INIT_RECORD_PARAMETER = "initialized";

/** The tag naming the member (its zone) on a member's etcd volume. */
export const ETCD_MEMBER_TAG = "cilium-cluster/etcd-member";

/**
 * The tag on a member's etcd volume that says what its data is (bootstrap/cluster-state.sh): set by the
 * nodes only (`member`, `removed`, `joining`); the program leaves it alone (ignoreChanges).
 */
export const ETCD_STATE_TAG = "cilium-cluster/etcd-state";

/** The values nodes give ETCD_STATE_TAG. */
export const ETCD_STATES = ["member", "removed", "joining"] as const;

/** Where etcd keeps its data: a directory on the member's volume, which is mounted at /var/lib/etcd. */
export const ETCD_DATA_DIR = "/var/lib/etcd/data";

/**
 * The stable DNS name of the etcd member of a zone (kOps's `etcd-<name>.internal.<cluster>`), in the
 * cluster's private hosted zone: members address each other by it (peer URLs), and the node that holds the
 * member points it at its own address before etcd starts, so a member that comes back on a new instance is
 * found again, even when every member comes back at once.
 */
export const etcdMemberName = (clusterName: string, zone: string) => `etcd-${zone}.internal.${clusterName}`;

/** The control plane's etcd members: one per control-plane zone, named by etcdMemberName. */
export function etcdMembers(spec: ClusterSpec): { zone: string; name: string }[] {
  return instanceGroups(spec)
    .filter((g) => g.role === "control-plane")
    .map((g) => ({ zone: g.zones[0], name: etcdMemberName(spec.clusterName, g.zones[0]) }));
}

/** The TTL (seconds) of a member's record: short, so peers find a replacement soon after it claims the name. */
export const ETCD_MEMBER_RECORD_TTL = 30;

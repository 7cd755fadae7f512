/**
 * Cilium's `cluster-name`, derived from `clusterName`. Cilium 1.17+ accepts only lowercase letters, digits
 * and `-`, starting and ending alphanumeric, at most 32 characters (the agent and operator refuse to start
 * otherwise, and the chart's validate.yaml refuses to render), while `clusterName` is a DNS name of up to
 * 63. The result is a readable prefix of the name plus a short hash of the whole name, so two clusters whose
 * names share a long prefix (or differ only in punctuation) still get different names: ENI garbage
 * collection keys on this name and must never touch another cluster's interfaces.
 */
import { createHash } from "crypto";

/** Cilium's rule for `cluster-name` (`ClusterInfo.Validate`, the chart's validate.yaml). */
export const CILIUM_CLUSTER_NAME = /^([a-z0-9][-a-z0-9]*)?[a-z0-9]$/;
export const CILIUM_CLUSTER_NAME_MAX = 32;

const HASH_LENGTH = 8;

export function ciliumClusterName(clusterName: string): string {
  const hash = createHash("sha256").update(clusterName).digest("hex").slice(0, HASH_LENGTH);
  const readable = clusterName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, CILIUM_CLUSTER_NAME_MAX - HASH_LENGTH - 1)
    .replace(/^-+|-+$/g, "");
  return readable ? `${readable}-${hash}` : hash;
}

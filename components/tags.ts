/** The tags kOps puts on a cluster's AWS resources (their keys: catalogs/kopsTagKeys.ts), plus the user's cloud labels. */
import { CLUSTER_TAG, ownedTagKey } from "../catalogs/kopsTagKeys";
import type { ClusterSpec } from "../config/types";

export type Tags = Record<string, string>;

/** `KubernetesCluster`, `kubernetes.io/cluster/<name>=owned` and `Name`, over the cloud labels. */
export function clusterTags(
  spec: Pick<ClusterSpec, "clusterName" | "cloudLabels">,
  name: string,
  extra: Tags = {},
): Tags {
  return {
    ...spec.cloudLabels,
    [CLUSTER_TAG]: spec.clusterName,
    [ownedTagKey(spec.clusterName)]: "owned",
    Name: name,
    ...extra,
  };
}

/**
 * On the private subnets nodes run in: Cilium's `subnet-tags-filter` in ENI mode selects them, so the
 * operator never creates pod ENIs in the public utility subnets of the same zone.
 */
export const NODE_SUBNET_TAG: Readonly<Tags> = { "cilium-cluster/node-subnet": "1" };

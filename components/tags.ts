/** The tags kOps puts on a cluster's AWS resources, plus the user's cloud labels. */
import type { ClusterSpec } from "../config/types";

export type Tags = Record<string, string>;

/** The tag every resource of the cluster carries, its value the cluster's name (kOps's). */
export const CLUSTER_TAG = "KubernetesCluster";

/** The tag, valued `1`, on a group's instances that says their role (kOps's); the plan tells groups apart by it. */
export const ROLE_TAGS = { "control-plane": "k8s.io/role/control-plane", node: "k8s.io/role/node" } as const;

/**
 * The tag key, valued `owned`, of what belongs to the cluster (kOps's, and the cloud controller manager's):
 * `kubernetes.io/cluster/<name>`.
 */
export const ownedTagKey = (clusterName: string): string => `kubernetes.io/cluster/${clusterName}`;

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

/** kOps's tag of an instance group's instances: the group's name (how `kubectl drain` finds its nodes). */
export const INSTANCE_GROUP_TAG = "kops.k8s.io/instancegroup";

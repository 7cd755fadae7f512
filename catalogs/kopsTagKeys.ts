/** The tag keys kOps gives a cluster's AWS resources, which the cloud controller and the plan read too. */

/** The tag every resource of the cluster carries, its value the cluster's name (kOps's). */
export const CLUSTER_TAG = "KubernetesCluster";

/** The tag, valued `1`, on a group's instances that says their role (kOps's); the plan tells groups apart by it. */
export const ROLE_TAGS = { "control-plane": "k8s.io/role/control-plane", node: "k8s.io/role/node" } as const;

/**
 * The tag key, valued `owned`, of what belongs to the cluster (kOps's, and the cloud controller manager's):
 * `kubernetes.io/cluster/<name>`.
 */
export const ownedTagKey = (clusterName: string): string => `kubernetes.io/cluster/${clusterName}`;

/** kOps's tag of an instance group's instances: the group's name (how `kubectl drain` finds its nodes). */
export const INSTANCE_GROUP_TAG = "kops.k8s.io/instancegroup";

/**
 * What the cluster check reads, as plain data: the Kubernetes objects as the API returns them, and the
 * cluster's Auto Scaling groups when AWS answered. The verdict is judged from this alone.
 */
import type { AutoScalingGroup } from "@aws-sdk/client-auto-scaling";
import type { V1DaemonSet, V1Deployment, V1Node, V1Pod } from "@kubernetes/client-node";

/** One check of the API server's `/readyz?verbose` (`[+]etcd ok`, `[-]etcd failed: ...`). */
export interface ReadyzCheck {
  name: string;
  ok: boolean;
}

/** A CiliumNode (cilium.io/v2), the fields the check reads, as Cilium's CRD names them. */
export interface CiliumNode {
  metadata: { name: string };
  spec?: {
    eni?: { "instance-type"?: string; "first-interface-index"?: number };
    ipam?: { pool?: Record<string, { resource?: string }> };
  };
  status?: {
    eni?: { enis?: Record<string, { id?: string; addresses?: string[] }> };
    ipam?: {
      used?: Record<string, { owner?: string; resource?: string }>;
      "operator-status"?: { error?: string };
    };
  };
}

export interface ReachedCluster {
  reachable: true;
  /** The API server's readiness checks; etcd's among them. */
  readyz: ReadyzCheck[];
  /** The clusterName of kubeadm's ClusterConfiguration (kube-system/kubeadm-config), if it is there. */
  kubeadmClusterName?: string;
  nodes: V1Node[];
  pods: V1Pod[];
  daemonSets: V1DaemonSet[];
  deployments: V1Deployment[];
  /** Read in ENI mode only. */
  ciliumNodes?: CiliumNode[];
}

/** Or the API server did not answer, or refused a request: why, in a line. */
export type ClusterState = ReachedCluster | { reachable: false; server: string; error: string };

/** The cluster's Auto Scaling groups, or why they could not be listed (no credentials, a refusal). */
export type AwsGroups = { listed: true; groups: AutoScalingGroup[] } | { listed: false; reason: string };

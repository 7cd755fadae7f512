/**
 * A Kubernetes Node as the box's scenarios read it (`kubectl get nodes -o json`), and what they ask of it.
 */
export interface K8sNode {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { providerID?: string; taints?: { key: string }[]; unschedulable?: boolean };
  status: { conditions: { type: string; status: string }[]; addresses: { type: string; address: string }[] };
}

export const ready = (n: K8sNode) => n.status.conditions.some((c) => c.type === "Ready" && c.status === "True");

/**
 * Initialised by the cloud controller: the `uninitialized` taint gone and the zone and instance-type labels set
 * (its node controller's; the kubelet sets neither), with the provider id the kubelet registered.
 */
export const initialised = (n: K8sNode) =>
  Boolean(n.spec.providerID) &&
  Boolean(n.metadata.labels["topology.kubernetes.io/zone"]) &&
  Boolean(n.metadata.labels["node.kubernetes.io/instance-type"]) &&
  !(n.spec.taints ?? []).some((t) => t.key === "node.cloudprovider.kubernetes.io/uninitialized");

/**
 * A Kubernetes Node as the box's scenarios read it (`kubectl get nodes -o json`), and what they ask of it.
 */
export interface K8sNode {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { providerID?: string; taints?: { key: string }[]; unschedulable?: boolean };
  status: { conditions: { type: string; status: string }[]; addresses: { type: string; address: string }[] };
}

export const ready = (n: K8sNode) => n.status.conditions.some((c) => c.type === "Ready" && c.status === "True");

/** Initialised by the cloud controller: its provider id set and the `uninitialized` taint gone. */
export const initialised = (n: K8sNode) =>
  Boolean(n.spec.providerID) &&
  !(n.spec.taints ?? []).some((t) => t.key === "node.cloudprovider.kubernetes.io/uninitialized");

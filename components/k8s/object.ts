/** A Kubernetes object as plain data: what add-on renderers produce and the Kubernetes layer declares. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** An object's identity in a cluster: `kind/namespace/name` (`kind//name` for cluster-scoped objects). */
export const objectKey = (o: K8sObject): string => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

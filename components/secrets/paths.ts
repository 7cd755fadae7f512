/**
 * Where the cluster's bootstrap secrets live: encrypted SSM parameters under a prefix of the cluster's
 * own, split by who may read them. Workers read only `node/`; the control plane reads both.
 */
export type SecretAudience = "control-plane" | "node";

export function parameterPrefix(clusterName: string, audience: SecretAudience): string {
  return `/cilium-cluster/${clusterName}/${audience}/`;
}

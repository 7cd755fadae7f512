/**
 * The `cilium-config` keys the program renders from config (components/cilium/configMap.ts), each with the
 * config key that sets it: an `extraConfig` entry may not override them (validation/extraConfig.ts), or it
 * would undo what validation checked.
 */
export const MANAGED_CILIUM_KEYS: Readonly<Record<string, string>> = {
  ipam: "networking.cilium.ipam",
  "enable-endpoint-routes": "networking.cilium.ipam",
  "auto-create-cilium-node-resource": "networking.cilium.ipam",
  "eni-tags": "cloudLabels",
  "routing-mode": "networking.cilium.tunnel",
  "tunnel-protocol": "networking.cilium.tunnel",
  "enable-ipv4-masquerade": "networking.cilium.disableMasquerade",
  "enable-bpf-masquerade": "networking.cilium.bpfMasquerade",
  "kube-proxy-replacement": "networking.cilium.enableNodePort",
  "cluster-name": "clusterName",
};

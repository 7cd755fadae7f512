/**
 * `networking.cilium.extraConfig` adds `cilium-config` keys, but must not override a key the program
 * renders from other config: that would undo the rules validation checked (ENI IPAM needs native routing,
 * ...). Each managed key maps to the config key that controls it, which the error names.
 */
import type { ClusterSpec } from "../types";
import { child, FieldError, forbidden, mustRemove } from "./fieldErrors";

export const MANAGED_CILIUM_KEYS: Readonly<Record<string, string>> = {
  ipam: "networking.cilium.ipam",
  "enable-endpoint-routes": "networking.cilium.ipam",
  "auto-create-cilium-node-resource": "networking.cilium.ipam",
  "eni-tags": "cloudLabels",
  "routing-mode": "networking.cilium.tunnel",
  "tunnel-protocol": "networking.cilium.tunnel",
  "enable-ipv4-masquerade": "networking.cilium.disableMasquerade",
  "kube-proxy-replacement": "networking.cilium.enableNodePort",
  "cluster-name": "clusterName",
};

export function validateExtraConfig(spec: ClusterSpec): FieldError[] {
  const path = "networking.cilium.extraConfig";
  return Object.keys(spec.networking.cilium.extraConfig)
    .filter((key) => key in MANAGED_CILIUM_KEYS)
    .map((key) =>
      mustRemove(
        forbidden(
          child(path, key),
          `the program sets this Cilium option from ${MANAGED_CILIUM_KEYS[key]}; set that instead`,
        ),
      ),
    );
}

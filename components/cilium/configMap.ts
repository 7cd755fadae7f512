/**
 * The `cilium-config` ConfigMap data per IPAM mode, and its checksum. Pure. Keys are the ones the shipped
 * Cilium lines' charts render (no removed keys such as `blacklist-conflicting-routes`); `extraConfig` goes
 * last so it overrides anything rendered here.
 */
import { createHash } from "crypto";
import type { CiliumSpec } from "./ciliumSpec";
import { NODE_SUBNET_TAG } from "../tags";
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import { ciliumClusterName } from "./clusterName";
import { manifestsFor } from "./lines/releaseLines";
import { eniMode } from "../../config/eniMode";
import { CILIUM_FEATURES } from "./features/ciliumFeatures";

/**
 * The keys rendered here from config, each with the config key that sets it; with the features' own
 * (features/) they are the keys `extraConfig` may not set (extraConfigRules.ts).
 */
export const RENDERED_FROM_CONFIG: Readonly<Record<string, string>> = {
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

/** Every `cilium-config` key the program renders from config: these and the features'. */
export function managedCiliumKeys(): Record<string, string> {
  return Object.assign({}, RENDERED_FROM_CONFIG, ...CILIUM_FEATURES.map((feature) => feature.managedKeys));
}

/** Cilium's own name for each IPAM mode of the spec. */
export const CILIUM_IPAM_MODE = { "": "kubernetes", crd: "crd", eni: "eni" } as const;

/** Native routing, or a tunnel; the chart names a tunnel protocol (`vxlan`) in native mode too. */
function routingKeys(spec: CiliumSpec): Record<string, string> {
  const tunnel = spec.networking.cilium.tunnel;
  if (tunnel === "disabled") return { "routing-mode": "native", "tunnel-protocol": "vxlan" };
  return { "routing-mode": "tunnel", "tunnel-protocol": tunnel };
}

/** `eni-tags`: the cluster tag and the cloud labels, as JSON so no tag value can break the list. */
export function eniTags(spec: CiliumSpec): string {
  const tags: Record<string, string> = { ...spec.cloudLabels, [CLUSTER_TAG]: spec.clusterName };
  const sorted = Object.fromEntries(
    Object.keys(tags)
      .sort()
      .map((k) => [k, tags[k]]),
  );
  return JSON.stringify(sorted);
}

function ipamKeys(spec: CiliumSpec): Record<string, string> {
  const ipam = spec.networking.cilium.ipam;
  const keys: Record<string, string> = { ipam: CILIUM_IPAM_MODE[ipam], "ipam-cilium-node-update-rate": "15s" };
  if (eniMode(spec.networking.cilium)) {
    Object.assign(keys, {
      "enable-endpoint-routes": "true",
      "auto-create-cilium-node-resource": "true",
      "ec2-api-endpoint": "",
      "eni-tags": eniTags(spec),
      // Garbage collection deletes only detached ENIs carrying these tags: this cluster's, never another's.
      "eni-gc-tags": JSON.stringify({
        "io.cilium/cilium-managed": "true",
        "io.cilium/cluster-name": ciliumClusterName(spec.clusterName),
      }),
      // New ENIs only in the private node subnets, never the public utility subnets of the same zone.
      "subnet-tags-filter": Object.entries(NODE_SUBNET_TAG)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    });
  }
  return keys;
}

/**
 * The line's chart defaults, then the program's choices, then `extraConfig`. Every key here that differs
 * from what the chart renders for the same choices is on the parity test's list of intended differences.
 */
export function renderCiliumConfig(spec: CiliumSpec): Record<string, string> {
  const cilium = spec.networking.cilium;
  const line = manifestsFor(cilium.version);
  const data: Record<string, string> = {
    ...line.config,
    ...(!cilium.enableNodePort && line.kubeProxyConfig),
    // Cilium's ENI garbage collection keys on the cluster name: valid for Cilium and unique per account.
    "cluster-name": ciliumClusterName(spec.clusterName),
    "kube-proxy-replacement": String(cilium.enableNodePort),
    ...(cilium.enableNodePort && { "kube-proxy-replacement-healthz-bind-address": "" }),
    "enable-ipv4-masquerade": String(!cilium.disableMasquerade),
    // Hubble off unless its feature turns it on (features/), where the chart's default turns it on; and no
    // policy secrets sync (no TLS-interception policies, Ingress or Gateway API here).
    "enable-hubble": "false",
    "enable-policy-secrets-sync": "false",
    ...routingKeys(spec),
    ...ipamKeys(spec),
    ...Object.assign({}, ...CILIUM_FEATURES.map((feature) => feature.config(spec))),
    ...cilium.extraConfig,
  };
  return Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, data[k]]),
  );
}

/** SHA-256 (hex) of the ConfigMap data, the pod-template annotation that rolls pods on a config change. */
export function configChecksum(data: Record<string, string>): string {
  const canonical = JSON.stringify(
    Object.keys(data)
      .sort()
      .map((k) => [k, data[k]]),
  );
  return createHash("sha256").update(canonical).digest("hex");
}

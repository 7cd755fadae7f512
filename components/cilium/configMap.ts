/**
 * The `cilium-config` ConfigMap data per IPAM mode, and its checksum. Pure. Keys are the ones the shipped
 * Cilium lines understand (no removed keys such as `blacklist-conflicting-routes`); `extraConfig` goes
 * last so it overrides anything rendered here.
 */
import { createHash } from "crypto";
import type { ClusterSpec } from "../../spec/types";
import { NODE_SUBNET_TAG } from "../tags";
import { ciliumClusterName } from "./clusterName";

/** Cilium's own name for each IPAM mode of the spec. */
export const CILIUM_IPAM_MODE = { "": "kubernetes", crd: "crd", eni: "eni" } as const;

function routingKeys(spec: ClusterSpec): Record<string, string> {
  const tunnel = spec.networking.cilium.tunnel;
  if (tunnel === "disabled") return { "routing-mode": "native" };
  return { "routing-mode": "tunnel", "tunnel-protocol": tunnel, "tunnel-source-port-range": "0-0" };
}

/** `eni-tags`: the cluster tag and the cloud labels, as JSON so no tag value can break the list. */
export function eniTags(spec: ClusterSpec): string {
  const tags: Record<string, string> = { ...spec.cloudLabels, KubernetesCluster: spec.clusterName };
  const sorted = Object.fromEntries(
    Object.keys(tags)
      .sort()
      .map((k) => [k, tags[k]]),
  );
  return JSON.stringify(sorted);
}

function ipamKeys(spec: ClusterSpec): Record<string, string> {
  const ipam = spec.networking.cilium.ipam;
  const keys: Record<string, string> = { ipam: CILIUM_IPAM_MODE[ipam], "ipam-cilium-node-update-rate": "15s" };
  if (ipam === "eni") {
    Object.assign(keys, {
      "enable-endpoint-routes": "true",
      "auto-create-cilium-node-resource": "true",
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

export function renderCiliumConfig(spec: ClusterSpec): Record<string, string> {
  const cilium = spec.networking.cilium;
  const data: Record<string, string> = {
    "identity-allocation-mode": "crd",
    "identity-heartbeat-timeout": "30m0s",
    "identity-gc-interval": "15m0s",
    "cilium-endpoint-gc-interval": "5m0s",
    "nodes-gc-interval": "5m0s",
    // Cilium's ENI garbage collection keys on the cluster name: valid for Cilium and unique per account.
    "cluster-name": ciliumClusterName(spec.clusterName),
    debug: "false",
    "enable-ipv4": "true",
    "enable-ipv6": "false",
    // The CNI config appears only once the agent is ready, so the kubelet never starts pods without it.
    "write-cni-conf-when-ready": "/host/etc/cni/net.d/05-cilium.conflist",
    "cni-exclusive": "true",
    "cni-log-file": "/var/run/cilium/cilium-cni.log",
    "kube-proxy-replacement": String(cilium.enableNodePort),
    "enable-ipv4-masquerade": String(!cilium.disableMasquerade),
    "enable-ipv6-masquerade": "false",
    "enable-bpf-masquerade": "false",
    "enable-masquerade-to-route-source": "false",
    "install-no-conntrack-iptables-rules": "false",
    "auto-direct-node-routes": "false",
    "enable-policy": "default",
    "enable-l7-proxy": "true",
    "external-envoy-proxy": "false",
    "enable-hubble": "false",
    "enable-policy-secrets-sync": "false",
    "enable-health-checking": "true",
    "enable-endpoint-health-checking": "true",
    "enable-well-known-identities": "false",
    "enable-k8s-networkpolicy": "true",
    "monitor-aggregation": "medium",
    "bpf-map-dynamic-size-ratio": "0.0025",
    "remove-cilium-node-taints": "true",
    "set-cilium-node-taints": "true",
    "set-cilium-is-up-condition": "true",
    procfs: "/host/proc",
    // DNS proxy traffic keeps the pod's source address, as the chart sets it.
    "dnsproxy-enable-transparent-mode": "true",
    ...routingKeys(spec),
    ...ipamKeys(spec),
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

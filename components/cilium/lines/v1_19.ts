/**
 * Cilium 1.19: the operator must always be able to manage the ztunnel DaemonSet in its namespace; the
 * `config` init container needs `NET_ADMIN`; the agent's health port is declared and named.
 */
import type { CiliumLineManifests } from "./releaseLines";
import { roleWithBinding, rule } from "../ciliumRbac";
import { AGENT_CAPABILITIES_1_19 } from "./agentCapabilities";
import { CHART_CONFIG_COMMON } from "./chartConfig";

/** The 1.19 chart's config keys beyond those every line shares. */
const CONFIG_1_19 = {
  "unmanaged-pod-watcher-interval": "15s",
  "mesh-auth-enabled": "false",
  "policy-default-local-cluster": "true",
  "policy-deny-response": "none",
  "enable-host-firewall": "false",
  "enable-no-service-endpoints-routable": "true",
  "enable-service-topology": "false",
  "packetization-layer-pmtud-mode": "blackhole",
  "proxy-max-active-downstream-connections": "50000",
  "proxy-use-original-source-address": "true",
  "proxy-cluster-max-connections": "1024",
  "proxy-cluster-max-requests": "1024",
  "clustermesh-cache-ttl": "0s",
  "clustermesh-mcs-api-install-crds": "true",
};

export const line119: CiliumLineManifests = {
  line: "1.19",
  pods: {
    capabilities: AGENT_CAPABILITIES_1_19,
    configInitCapabilities: ["NET_ADMIN"],
    namedHealthPort: true,
    initShell: "bash",
    installCniLimits: true,
  },
  config: { ...CHART_CONFIG_COMMON, ...CONFIG_1_19 },
  extraObjects: (namespace) =>
    roleWithBinding(
      "cilium-operator-ztunnel",
      "cilium-operator",
      [rule(["apps"], ["daemonsets"], ["create", "delete", "get", "list", "watch"])],
      namespace,
    ),
};

/** Cilium 1.18: the shared object set is complete; its chart's config keys of its own. */
import type { CiliumLineManifests } from "./releaseLines";
import { AGENT_CAPABILITIES_1_18 } from "./agentCapabilities";
import { CHART_CONFIG_COMMON } from "./chartConfig";

export const line118: CiliumLineManifests = {
  line: "1.18",
  pods: { capabilities: AGENT_CAPABILITIES_1_18, namedHealthPort: false, initShell: "sh", installCniLimits: false },
  config: {
    ...CHART_CONFIG_COMMON,
    ...{
      "enable-svc-source-range-check": "true",
      "unmanaged-pod-watcher-interval": "15",
      "mesh-auth-enabled": "true",
      "policy-default-local-cluster": "false",
      "enable-internal-traffic-policy": "true",
    },
  },
  // The 1.18 chart writes `enable-node-port` only when kube-proxy replacement is off.
  kubeProxyConfig: { "enable-node-port": "false" },
  extraObjects: () => [],
};

/**
 * The chart values that make the same choices as a spec: IPAM mode, routing, masquerade, kube-proxy
 * replacement, cluster name, API host and port, operator replicas and placement (a literal, see below),
 * the ENI tags and subnet filter, `extraConfig`, `envoy.enabled=false` (the program runs Envoy inside
 * the agent), Hubble off, and then each Cilium feature's own values. Everything else stays at the chart's
 * defaults, so every other difference shows.
 */
import { ciliumClusterName } from "../../components/cilium/clusterName";
import { CILIUM_IPAM_MODE, eniTags } from "../../components/cilium/configMap";
import { CILIUM_FEATURES } from "../../components/cilium/features/ciliumFeatures";
import { NODE_SUBNET_TAG } from "../../components/tags";
import type { ClusterSpec } from "../../config/types";
import { merge } from "../fixtures";

/**
 * What a chart user sets for the operator placement kept from kOps's design, written here as a literal and
 * never taken from the program: in ENI mode the operator runs on control-plane nodes (their instance role
 * holds the ENI permissions); otherwise the chart's default (`kubernetes.io/os: linux`) stays. Helm merges it
 * into the chart's default map, so the rendered selector keeps `kubernetes.io/os: linux` too.
 */
const KOPS_ENI_OPERATOR_NODE_SELECTOR = { "node-role.kubernetes.io/control-plane": "" };

export function chartValues(spec: ClusterSpec, apiHost: string): Record<string, unknown> {
  const cilium = spec.networking.cilium;
  const eni = cilium.ipam === "eni";
  const clusterName = ciliumClusterName(spec.clusterName);
  const common: Record<string, unknown> = {
    cluster: { name: clusterName },
    ipam: { mode: CILIUM_IPAM_MODE[cilium.ipam] },
    routingMode: cilium.tunnel === "disabled" ? "native" : "tunnel",
    ...(cilium.tunnel !== "disabled" && { tunnelProtocol: cilium.tunnel }),
    enableIPv4Masquerade: !cilium.disableMasquerade,
    kubeProxyReplacement: String(cilium.enableNodePort),
    k8sServiceHost: apiHost,
    k8sServicePort: 443,
    envoy: { enabled: false },
    hubble: { enabled: false },
    operator: {
      replicas: spec.controlPlane.count > 1 ? 2 : 1,
      ...(eni && { nodeSelector: KOPS_ENI_OPERATOR_NODE_SELECTOR }),
    },
    extraConfig: cilium.extraConfig,
    ...(eni && {
      eni: {
        enabled: true,
        eniTags: JSON.parse(eniTags(spec)),
        gcTags: { "io.cilium/cilium-managed": "true", "io.cilium/cluster-name": clusterName },
        subnetTagsFilter: Object.entries(NODE_SUBNET_TAG).map(([k, v]) => `${k}=${v}`),
      },
    }),
  };
  return CILIUM_FEATURES.reduce<Record<string, unknown>>(
    (values, feature) => merge(values, feature.chartValues(spec)),
    common,
  );
}

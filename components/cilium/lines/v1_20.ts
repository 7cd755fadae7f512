/**
 * Cilium 1.20: the objects of 1.19 (its ENI IPAM moved onto the multi-pool allocator inside the agent);
 * the operator's ztunnel Role also reads service accounts, pods state that they use the host's user
 * namespace, the agent's `config` step takes an API server list, and its chart has new config keys.
 */
import type { CiliumLineManifests } from "./releaseLines";
import { roleWithBinding, rule } from "../ciliumRbac";
import { line119 } from "./v1_19";

export const line120: CiliumLineManifests = {
  ...line119,
  line: "1.20",
  pods: { ...line119.pods, configInitArgs: ["--k8s-api-server-urls="], hostUsers: true },
  config: {
    ...line119.config,
    devices: "",
    "enable-dynamic-source-lookup-nodeport": "false",
    "proxy-cluster-max-pending-requests": "1024",
    "envoy-node-locality-enabled": "false",
    "envoy-access-log-enabled": "true",
    "envoy-xds-mode": "ads",
    "clustermesh-default-global-namespace": "true",
    "enable-datapath-plugins": "false",
    "datapath-plugins-state-dir": "/var/run/cilium/plugins",
  },
  extraObjects: (namespace) =>
    roleWithBinding(
      "cilium-operator-ztunnel",
      "cilium-operator",
      [
        rule(["apps"], ["daemonsets"], ["create", "delete", "get", "list", "watch"]),
        rule([""], ["serviceaccounts"], ["get", "list", "watch"]),
      ],
      namespace,
    ),
};

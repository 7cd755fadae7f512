/**
 * Cilium 1.19: the operator must always be able to manage the ztunnel DaemonSet in its namespace; the
 * `config` init container needs `NET_ADMIN`; the agent's health port is declared and named.
 */
import type { CiliumLineManifests } from ".";
import { roleWithBinding, rule } from "../rbac";
import { AGENT_CAPABILITIES_1_19 } from "./agentCapabilities";

export const line119: CiliumLineManifests = {
  line: "1.19",
  agent: { capabilities: AGENT_CAPABILITIES_1_19, configInitCapabilities: ["NET_ADMIN"], namedHealthPort: true },
  extraObjects: (namespace) =>
    roleWithBinding(
      "cilium-operator-ztunnel",
      "cilium-operator",
      [rule(["apps"], ["daemonsets"], ["create", "delete", "get", "list", "watch"])],
      namespace,
    ),
};

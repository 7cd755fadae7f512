/** Cilium 1.19: the operator must always be able to manage the ztunnel DaemonSet in its namespace. */
import type { CiliumLineManifests } from ".";
import { roleWithBinding, rule } from "../rbac";

export const line119: CiliumLineManifests = {
  line: "1.19",
  extraObjects: (namespace) =>
    roleWithBinding(
      "cilium-operator-ztunnel",
      "cilium-operator",
      [rule(["apps"], ["daemonsets"], ["create", "delete", "get", "list", "watch"])],
      namespace,
    ),
};

/** Where add-on pods run: placement shared by every add-on that must sit on the control plane. */

/**
 * On the control plane: its nodeSelector, its taint tolerated, and node trouble tolerated for five minutes
 * (kOps's placement for the Cilium operator in ENI mode, where the instance role carries its permissions).
 */
export const CONTROL_PLANE_PLACEMENT = {
  nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
  tolerations: [
    { key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" },
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: "node.cloudprovider.kubernetes.io/uninitialized", operator: "Exists" },
  ],
};

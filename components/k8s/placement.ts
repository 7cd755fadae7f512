/** Where add-on pods run: node selection and tolerations shared by every add-on. */

/** Any Linux node (the charts' default nodeSelector). */
export const LINUX_NODES = { "kubernetes.io/os": "linux" };

/**
 * Control-plane nodes only: kOps's placement for pods whose AWS permissions sit on the control-plane
 * instance role (the Cilium operator in ENI mode).
 */
export const CONTROL_PLANE_NODES = { ...LINUX_NODES, "node-role.kubernetes.io/control-plane": "" };

/** The control plane's taints (and the name older clusters used). */
export const CONTROL_PLANE_TOLERATIONS = [
  { key: "node-role.kubernetes.io/control-plane", operator: "Exists" },
  { key: "node-role.kubernetes.io/master", operator: "Exists" },
];

/**
 * The taint the kubelet registers with under `--cloud-provider=external` (kubeadmConfig.ts), until the cloud
 * controller manager has initialised the node (providerID, addresses, zone labels).
 */
export const CLOUD_UNINITIALIZED_TOLERATION = {
  key: "node.cloudprovider.kubernetes.io/uninitialized",
  operator: "Exists",
};

/**
 * For pods the cluster needs before any node is Ready. On a fresh cluster every node carries
 * `node.kubernetes.io/not-ready:NoSchedule` until the CNI writes its config (and Cilium's agent in ENI mode
 * waits for its operator to hand it addresses), the cloud taint until a cloud controller initialises the
 * node, and `node.cilium.io/agent-not-ready`, which only Cilium's operator removes.
 */
export const NOT_READY_NODE_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists" },
  CLOUD_UNINITIALIZED_TOLERATION,
  { key: "node.cilium.io/agent-not-ready", operator: "Exists" },
];

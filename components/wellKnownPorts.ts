/**
 * The ports the cluster's parts talk on, written once (kOps's `pkg/wellknownports`). Security rules, the
 * API load balancer, the kubeconfig and what nodes are told all take their ports from here.
 */

/** The API as users, kubelets and Cilium reach it: the load balancers' listener. */
export const API_LISTENER = 443;
/**
 * kube-apiserver on each control-plane node (kubeadm's `bindPort`; kOps's `--secure-port`), the listener's
 * target: the same port as the listener, so that a control-plane node reaches the API's name, pinned to
 * itself, at its own API server (bootstrap/control-plane.sh).
 */
export const KUBE_APISERVER = API_LISTENER;
/** etcd's client, peer and (kubeadm's `--listen-metrics-urls`) metrics ports on the control plane. */
export const ETCD_CLIENT = 2379;
export const ETCD_PEER = 2380;
export const ETCD_METRICS = 2381;
/** The kubelet's API: logs, exec, port-forward, metrics from the API server. */
export const KUBELET_API = 10250;
/** Cilium's node-to-node health checks (`cilium-health`). */
export const CILIUM_HEALTH = 4240;
/**
 * Health endpoints on the host network: the Cilium agent's (its probes) and the operator's API (its probes,
 * `operator-api-serve-addr`).
 */
export const CILIUM_AGENT_HEALTH = 9879;
export const CILIUM_OPERATOR_HEALTH = 9234;
/**
 * Hubble's server in each agent, on the host network (`hubble-listen-address`), where the relay reaches every
 * node; and the port of its `hubble-peer` Service.
 */
export const HUBBLE_SERVER = 4244;
export const HUBBLE_PEER_SERVICE = 443;
/** Cilium's tunnel ports: VXLAN on Linux's 8472 (not IANA's 4789), Geneve on 6081. */
export const CILIUM_TUNNEL = { vxlan: 8472, geneve: 6081 } as const;
/**
 * The EBS CSI driver's health endpoints (its chart's): the plugin's, on the host network in the controller,
 * and the node driver registrar's.
 */
export const EBS_CSI_HEALTH = 9808;
export const EBS_CSI_REGISTRAR_HEALTH = 9809;
/**
 * aws-node-termination-handler's probe server (its chart's `probes.httpGet.port`), on the control plane's
 * host network.
 */
export const NODE_TERMINATION_HANDLER_PROBES = 8080;

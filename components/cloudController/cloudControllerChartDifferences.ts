/** The cloud controller manager's reviewed differences from its chart (aws-cloud-controller-manager). */
import type { IntendedDifference } from "../k8s/chartDifference";

const CCM = "DaemonSet/aws-cloud-controller-manager spec.template";
const BEFORE_NODES_READY =
  "It initialises the nodes, so it must run before any is Ready: on the host network, which needs no CNI, " +
  "tolerating every taint of a fresh node (not-ready, uninitialized, Cilium's agent-not-ready) as Cilium's " +
  "operator does.";
const HOST_NETWORK_API =
  "On the host network before Cilium routes Service addresses (and without kube-proxy they route only through " +
  "Cilium), it reaches the API at its internal name, which a control-plane node pins to its own API server.";
const OWN_CREDENTIALS =
  "Every controller of the cloud controller manager runs under its own account (no " +
  "--use-service-account-credentials): it creates no service accounts and mints no tokens, a grant that would " +
  "let its holder mint a token for any service account.";
const NODE_VERBS =
  "Nodes with the verbs the cloud controller manager's controllers call (get, list, watch, update, patch, delete), " +
  "not every verb: whoever holds its token cannot create Node objects.";

export const CLOUD_CONTROLLER_CHART_DIFFERENCES: readonly IntendedDifference[] = [
  { path: "ClusterRole/system:cloud-controller-manager grants /serviceaccounts*", reason: OWN_CREDENTIALS },
  { path: "ClusterRole/system:cloud-controller-manager grants /nodes *", reason: NODE_VERBS },
  { path: `${CCM}.spec.tolerations*`, reason: BEFORE_NODES_READY },
  { path: `${CCM}.spec.hostNetwork`, reason: BEFORE_NODES_READY },
  { path: `${CCM}.spec.containers[aws-cloud-controller-manager].env*`, reason: HOST_NETWORK_API },
  {
    path: `${CCM}.spec.nodeSelector.kubernetes.io/os`,
    reason: "Linux nodes only, as every add-on selects (components/k8s/placement.ts).",
  },
];

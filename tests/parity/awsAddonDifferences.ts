/**
 * The reviewed list of intended differences between the AWS add-ons' objects and what their charts render
 * for the same choices (tests/parity/awsAddonCases.ts), in the form of components/cilium/chartDifferences.ts.
 */
import { explainIn } from "../../components/cilium/chartDifferences";
import type { IntendedDifference } from "../../components/cilium/intendedDifference";

const CCM = "DaemonSet/aws-cloud-controller-manager spec.template";
const CONTROLLER = "Deployment/ebs-csi-controller spec.template";
const HANDLER = "Deployment/aws-node-termination-handler spec.template";
const BEFORE_NODES_READY =
  "It initialises the nodes, so it must run before any is Ready: on the host network, which needs no CNI, " +
  "tolerating every taint of a fresh node (not-ready, uninitialized, Cilium's agent-not-ready) as Cilium's " +
  "operator does.";
const HOST_NETWORK_API =
  "On the host network before Cilium routes Service addresses (and without kube-proxy they route only through " +
  "Cilium), it reaches the API at its internal name, which a control-plane node pins to its own API server.";
const CONTROLLER_ON_CONTROL_PLANE =
  "The controller's AWS identity is the control-plane role (kOps's placement for pods whose permissions sit " +
  "there): on the control plane only, and tolerating the taint a node keeps until the cloud controller " +
  "manager has initialised it.";
const IMDS =
  "Instance metadata, the source of the control-plane role's credentials, answers only the host's network " +
  "namespace at the default hop limit (instanceMetadata.hopLimit: 1).";
const EKS = "No EKS compute types (Fargate, Auto Mode, hybrid nodes) exist in this cluster.";
const HELM = "The objects are not installed by Helm.";
const OWN_CREDENTIALS =
  "Every controller of the cloud controller manager runs under its own account (no " +
  "--use-service-account-credentials): it creates no service accounts and mints no tokens, a grant that would " +
  "let its holder mint a token for any service account.";

const NODE_VERBS =
  "Nodes with the verbs the cloud controller manager's controllers call (get, list, watch, update, patch, delete), " +
  "not every verb: whoever holds its token cannot create Node objects.";

export const AWS_ADDON_DIFFERENCES: readonly IntendedDifference[] = [
  { path: "ClusterRole/system:cloud-controller-manager grants /serviceaccounts*", reason: OWN_CREDENTIALS },
  { path: "ClusterRole/system:cloud-controller-manager grants /nodes *", reason: NODE_VERBS },
  {
    path: "ClusterRole/ebs-external-provisioner-role grants /nodes get *",
    reason:
      "csi-provisioner v6.3.0 reads nodes only through its informer's lister (list, watch): it never gets one " +
      "(cmd/csi-provisioner/csi-provisioner.go, pkg/controller/topology.go).",
  },
  { path: `${CCM}.spec.tolerations*`, reason: BEFORE_NODES_READY },
  { path: `${CCM}.spec.hostNetwork`, reason: BEFORE_NODES_READY },
  { path: `${CCM}.spec.containers[aws-cloud-controller-manager].env*`, reason: HOST_NETWORK_API },
  {
    path: `${CCM}.spec.nodeSelector.kubernetes.io/os`,
    reason: "Linux nodes only, as every add-on selects (components/k8s/placement.ts).",
  },
  {
    path: `${CONTROLLER}.spec.nodeSelector.node-role.kubernetes.io/control-plane`,
    reason: CONTROLLER_ON_CONTROL_PLANE,
  },
  { path: `${CONTROLLER}.spec.tolerations[node*`, reason: CONTROLLER_ON_CONTROL_PLANE },
  { path: `${CONTROLLER}.spec.hostNetwork`, reason: IMDS },
  { path: `${CONTROLLER}.spec.dnsPolicy`, reason: `${IMDS} On the host network it resolves as the host does.` },
  {
    path: `${CONTROLLER}.spec.containers[ebs-plugin].env[AWS_*`,
    reason: "AWS credentials and endpoints come from the instance role and region, never a Secret or ConfigMap.",
  },
  {
    path: `${HANDLER}.spec.hostNetwork`,
    reason: `${IMDS} kOps runs the handler in queue mode on the host network of the control plane too.`,
  },
  { path: `${HANDLER}.spec.dnsPolicy`, reason: `${IMDS} On the host network it resolves as the host does.` },
  { path: "* spec.template.spec.affinity.nodeAffinity*eks.amazonaws.com/compute-type*", reason: EKS },
  {
    path: `${CONTROLLER}.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`,
    reason: EKS,
  },
  { path: "* spec.template.metadata.labels.helm.sh/chart", reason: HELM },
  { path: "* spec.template.metadata.labels.app.kubernetes.io/managed-by", reason: HELM },
  {
    path: "ClusterRole*/ebs*snapshotter*",
    reason:
      "No snapshots: the program installs no snapshot CRDs or snapshot controller, so the driver runs no " +
      "snapshotter sidecar (as the chart leaves it out) and its account is granted no snapshot RBAC.",
  },
];

export const explainAwsAddon = (path: string) => explainIn(AWS_ADDON_DIFFERENCES, path);

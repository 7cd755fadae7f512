/** The EBS CSI driver's reviewed differences from its chart (aws-ebs-csi-driver). */
import { IntendedDifference, NOT_INSTALLED_BY_HELM, ROLE_CREDENTIALS_ON_HOST_NETWORK } from "../k8s/chartDifference";

const CONTROLLER = "Deployment/ebs-csi-controller spec.template";
const CONTROLLER_ON_CONTROL_PLANE =
  "The controller's AWS identity is the control-plane role (kOps's placement for pods whose permissions sit " +
  "there): on the control plane only, and tolerating the taint a node keeps until the cloud controller " +
  "manager has initialised it.";
const EKS = "No EKS compute types (Fargate, Auto Mode, hybrid nodes) exist in this cluster.";

export const EBS_CSI_CHART_DIFFERENCES: readonly IntendedDifference[] = [
  {
    path: "ClusterRole/ebs-external-provisioner-role grants /nodes get *",
    reason:
      "csi-provisioner v6.3.0 reads nodes only through its informer's lister (list, watch): it never gets one " +
      "(cmd/csi-provisioner/csi-provisioner.go, pkg/controller/topology.go).",
  },
  {
    path: `${CONTROLLER}.spec.nodeSelector.node-role.kubernetes.io/control-plane`,
    reason: CONTROLLER_ON_CONTROL_PLANE,
  },
  { path: `${CONTROLLER}.spec.tolerations[node*`, reason: CONTROLLER_ON_CONTROL_PLANE },
  { path: `${CONTROLLER}.spec.hostNetwork`, reason: ROLE_CREDENTIALS_ON_HOST_NETWORK },
  {
    path: `${CONTROLLER}.spec.dnsPolicy`,
    reason: `${ROLE_CREDENTIALS_ON_HOST_NETWORK} On the host network it resolves as the host does.`,
  },
  {
    path: `${CONTROLLER}.spec.containers[ebs-plugin].env[AWS_*`,
    reason: "AWS credentials and endpoints come from the instance role and region, never a Secret or ConfigMap.",
  },
  { path: "* spec.template.spec.affinity.nodeAffinity*eks.amazonaws.com/compute-type*", reason: EKS },
  {
    path: `${CONTROLLER}.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`,
    reason: EKS,
  },
  { path: "* spec.template.metadata.labels.helm.sh/chart", reason: NOT_INSTALLED_BY_HELM },
  { path: "* spec.template.metadata.labels.app.kubernetes.io/managed-by", reason: NOT_INSTALLED_BY_HELM },
  {
    path: "ClusterRole*/ebs*snapshotter*",
    reason:
      "No snapshots: the program installs no snapshot CRDs or snapshot controller, so the driver runs no " +
      "snapshotter sidecar (as the chart leaves it out) and its account is granted no snapshot RBAC.",
  },
];

/**
 * The AWS cloud controller manager's objects, as its chart (aws-cloud-controller-manager 0.0.11) renders
 * them: its account and RBAC first, then the DaemonSet on the control plane. It initialises every node the
 * kubelet registers under `--cloud-provider=external` and runs Services of type LoadBalancer. Pure.
 */
import { CLOUD_CONTROLLER_REPOSITORY, cloudControllerRelease } from "../../catalogs/awsAddonReleases";
import type { ClusterSpec } from "../../config/types";
import type { K8sObject } from "../k8s/object";
import type { StagedObjects } from "../k8s/stages";
import { CONTROL_PLANE_NODES, CONTROL_PLANE_TOLERATIONS, NOT_READY_NODE_TOLERATIONS } from "../k8s/placement";
import { API_LISTENER } from "../wellKnownPorts";

const NAMESPACE = "kube-system";
const ACCOUNT = "cloud-controller-manager";
const ROLE = "system:cloud-controller-manager";
const subject = { apiGroup: "", kind: "ServiceAccount", name: ACCOUNT, namespace: NAMESPACE };

/**
 * The chart's ClusterRole rules (`clusterRoleRules`) but service-account creation and tokens: the chart
 * grants them for `--use-service-account-credentials`, with which each controller runs under an account and
 * token of its own that the manager mints. The program does not pass it: every controller runs under this
 * one account, and the grant would let the manager (or whoever holds its token) mint a token for any
 * service account in the cluster, cluster-admin's included. And Nodes with the verbs its controllers call,
 * where the chart grants every verb (creating Nodes among them) in k8s.io/cloud-provider v0.35: get, update
 * and patch by the cloud node controller (controllers/node/node_controller.go, node/helpers/labels.go and
 * taints.go), delete by the node lifecycle controller (controllers/nodelifecycle), list and watch by the
 * shared Node informer (the service controller's, and the AWS provider's own: pkg/providers/v1/aws.go).
 */
const RULES = [
  { apiGroups: [""], resources: ["events"], verbs: ["create", "patch", "update"] },
  { apiGroups: [""], resources: ["nodes"], verbs: ["delete", "get", "list", "patch", "update", "watch"] },
  { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
  { apiGroups: [""], resources: ["services"], verbs: ["list", "patch", "update", "watch"] },
  { apiGroups: [""], resources: ["services/status"], verbs: ["list", "patch", "update", "watch"] },
  { apiGroups: [""], resources: ["persistentvolumes"], verbs: ["get", "list", "update", "watch"] },
  { apiGroups: [""], resources: ["endpoints"], verbs: ["create", "get", "list", "watch", "update"] },
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "list", "watch", "update"] },
  { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
  { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
];

/** The image for the spec's Kubernetes minor (catalogs/awsAddonReleases.ts covers every supported minor). */
export function cloudControllerImage(spec: ClusterSpec): string {
  const release = cloudControllerRelease(spec.kubernetesVersion);
  if (!release) throw new Error(`no AWS cloud controller manager release recorded for ${spec.kubernetesVersion}`);
  return `${CLOUD_CONTROLLER_REPOSITORY}:${release.version}`;
}

/** `apiEndpoint`: the API's internal name, which the pod reaches before any Service address routes. */
export function renderCloudControllerManifests(spec: ClusterSpec, apiEndpoint: string): StagedObjects {
  const labels = { "k8s-app": "aws-cloud-controller-manager" };
  const daemonSet: K8sObject = {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "aws-cloud-controller-manager", namespace: NAMESPACE, labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: "RollingUpdate" },
      template: {
        metadata: { name: "aws-cloud-controller-manager", labels },
        spec: {
          // It initialises nodes, so it runs before any is Ready: on the host network (no CNI needed yet),
          // tolerating every taint of a fresh node.
          hostNetwork: true,
          tolerations: [...CONTROL_PLANE_TOLERATIONS, ...NOT_READY_NODE_TOLERATIONS],
          nodeSelector: CONTROL_PLANE_NODES,
          dnsPolicy: "Default",
          priorityClassName: "system-node-critical",
          serviceAccountName: ACCOUNT,
          securityContext: {},
          containers: [
            {
              name: "aws-cloud-controller-manager",
              image: cloudControllerImage(spec),
              // No route controller: Cilium routes pods, and the role grants no route-table writes.
              args: ["--v=2", "--cloud-provider=aws", "--configure-cloud-routes=false"],
              resources: { requests: { cpu: "200m" } },
              env: [
                { name: "KUBERNETES_SERVICE_HOST", value: apiEndpoint },
                { name: "KUBERNETES_SERVICE_PORT", value: String(API_LISTENER) },
              ],
              securityContext: {},
            },
          ],
        },
      },
    },
  };
  return {
    foundation: [
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: ACCOUNT, namespace: NAMESPACE } },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: ROLE }, rules: RULES },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: ROLE },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ROLE },
        subjects: [subject],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "cloud-controller-manager:apiserver-authentication-reader", namespace: NAMESPACE },
        roleRef: {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "Role",
          name: "extension-apiserver-authentication-reader",
        },
        subjects: [subject],
      },
    ],
    workloads: [daemonSet],
  };
}

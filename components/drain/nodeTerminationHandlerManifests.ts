/**
 * aws-node-termination-handler in queue mode, as its chart (aws-node-termination-handler 0.27.5) renders it
 * with kOps's settings (`upup/models/cloudup/resources/addons/node-termination-handler.aws/`): its account
 * and RBAC first, then the Deployment on the control plane, whose instance role may read the queue and
 * complete the drain hook. It receives the cluster's interruption events from the queue
 * (nodeTerminationHandlerEvents.ts), cordons and drains the node, respecting PodDisruptionBudgets, and
 * completes the instance's lifecycle action. Pure.
 */
import { NODE_TERMINATION_HANDLER_RELEASE } from "../../catalogs/awsAddonReleases";
import type { ClusterSpec } from "../../config/types";
import type { K8sObject } from "../k8s/object";
import { CLOUD_UNINITIALIZED_TOLERATION, CONTROL_PLANE_NODES, CONTROL_PLANE_TOLERATIONS } from "../k8s/placement";
import type { StagedObjects } from "../k8s/stages";
import { ownedTagKey } from "../../catalogs/kopsTagKeys";
import { TIMEOUTS } from "../timeouts";
import { NODE_TERMINATION_HANDLER_PROBES } from "../wellKnownPorts";
import { NODE_TERMINATION_HANDLER } from "../nodes/nodeFacts";

const NAMESPACE = "kube-system";
const RBAC = "rbac.authorization.k8s.io/v1";

const SELECTOR = {
  "app.kubernetes.io/name": NODE_TERMINATION_HANDLER,
  "app.kubernetes.io/instance": NODE_TERMINATION_HANDLER,
  "app.kubernetes.io/component": "deployment",
};
const LABELS = {
  "app.kubernetes.io/name": NODE_TERMINATION_HANDLER,
  "app.kubernetes.io/instance": NODE_TERMINATION_HANDLER,
  "app.kubernetes.io/version": NODE_TERMINATION_HANDLER_RELEASE.version,
  "app.kubernetes.io/part-of": NODE_TERMINATION_HANDLER,
};

/**
 * The chart's ClusterRole, with the events rule it adds when the handler emits Kubernetes events. Nodes, in
 * v1.25 (pkg/node/node.go): get and list to find the Node by name or providerID, patch to cordon it (with
 * k8s.io/kubectl's drain CordonHelper) and to label it, update where CordonHelper cannot compute a patch.
 */
const RULES = [
  { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "patch", "update"] },
  { apiGroups: [""], resources: ["pods"], verbs: ["list", "get"] },
  { apiGroups: [""], resources: ["pods/eviction"], verbs: ["create"] },
  { apiGroups: ["extensions"], resources: ["daemonsets"], verbs: ["get"] },
  { apiGroups: ["apps"], resources: ["daemonsets"], verbs: ["get"] },
  { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
];

/** Its replicas: one per control-plane node at most (on the host network, two would claim one probe port). */
export const nodeTerminationHandlerReplicas = (spec: ClusterSpec): number => (spec.controlPlane.count > 1 ? 2 : 1);

/**
 * The handler's settings, as the chart's environment in its order: kOps's, but that the managed tag is the
 * cluster's own (every instance of the cluster has it; the events of another cluster's instances that reach
 * the queue are dropped at once) and the drain's deadline comes from the timeouts table.
 */
function settings(spec: ClusterSpec, queueUrl: string): [string, string][] {
  const managedTag = ownedTagKey(spec.clusterName);
  return [
    ["ENABLE_PROBES_SERVER", "true"],
    ["PROBES_SERVER_PORT", String(NODE_TERMINATION_HANDLER_PROBES)],
    ["PROBES_SERVER_ENDPOINT", "/healthz"],
    ["LOG_LEVEL", "info"],
    ["JSON_LOGGING", "true"],
    ["LOG_FORMAT_VERSION", "2"],
    ["ENABLE_PROMETHEUS_SERVER", "false"],
    ["PROMETHEUS_SERVER_PORT", "9092"],
    ["CHECK_ASG_TAG_BEFORE_DRAINING", "true"],
    ["CHECK_TAG_BEFORE_DRAINING", "true"],
    ["MANAGED_ASG_TAG", managedTag],
    ["MANAGED_TAG", managedTag],
    // The node of an instance by its providerID, which the cloud controller manager sets.
    ["USE_PROVIDER_ID", "true"],
    ["DRY_RUN", "false"],
    ["CORDON_ONLY", "false"],
    ["TAINT_NODE", "false"],
    ["ENABLE_OUT_OF_SERVICE_TAINT", "false"],
    // Out of Services' load balancers (the cloud controller deregisters it) before the drain.
    ["EXCLUDE_FROM_LOAD_BALANCERS", "true"],
    ["DELETE_LOCAL_DATA", "true"],
    ["IGNORE_DAEMON_SETS", "true"],
    // Each pod's own grace period; the drain's deadline bounds them all.
    ["POD_TERMINATION_GRACE_PERIOD", "-1"],
    ["NODE_TERMINATION_GRACE_PERIOD", String(TIMEOUTS.drain.drainAttemptSeconds)],
    ["EMIT_KUBERNETES_EVENTS", "true"],
    ["COMPLETE_LIFECYCLE_ACTION_DELAY_SECONDS", "-1"],
    ["ENABLE_SQS_TERMINATION_DRAINING", "true"],
    ["QUEUE_URL", queueUrl],
    ["DELETE_SQS_MSG_IF_NODE_NOT_FOUND", "false"],
    ["WORKERS", "10"],
    // No heartbeats: the drain hook's timeout bounds the wait (TIMEOUTS.drain).
    ["HEARTBEAT_INTERVAL", "-1"],
    ["HEARTBEAT_UNTIL", "-1"],
    ["SQS_MSG_VISIBILITY_TIMEOUT_SEC", String(TIMEOUTS.drain.messageVisibilitySeconds)],
  ];
}

/** `queueUrl`: the URL of the handler's queue (NodeTerminationHandlerQueue), computed until it exists. */
export function renderNodeTerminationHandlerManifests(spec: ClusterSpec, queueUrl: string): StagedObjects {
  const replicas = nodeTerminationHandlerReplicas(spec);
  const metadata = { name: NODE_TERMINATION_HANDLER, labels: LABELS };
  const fieldRef = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  const deployment: K8sObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { ...metadata, namespace: NAMESPACE, labels: { ...LABELS, "app.kubernetes.io/component": "deployment" } },
    spec: {
      replicas,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: { labels: { ...SELECTOR, "k8s-app": NODE_TERMINATION_HANDLER } },
        spec: {
          serviceAccountName: NODE_TERMINATION_HANDLER,
          securityContext: { fsGroup: 1000 },
          priorityClassName: "system-cluster-critical",
          // Its AWS identity is the control-plane role, whose credentials instance metadata gives only to the
          // host's network namespace (hop limit 1 on the control plane): kOps runs it there the same way.
          hostNetwork: true,
          dnsPolicy: "Default",
          containers: [
            {
              name: NODE_TERMINATION_HANDLER,
              securityContext: {
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                runAsUser: 1000,
                runAsGroup: 1000,
              },
              image: NODE_TERMINATION_HANDLER_RELEASE.image,
              imagePullPolicy: "IfNotPresent",
              env: [
                { name: "NODE_NAME", ...fieldRef("spec.nodeName") },
                { name: "POD_NAME", ...fieldRef("metadata.name") },
                { name: "NAMESPACE", ...fieldRef("metadata.namespace") },
                ...settings(spec, queueUrl).map(([name, value]) => ({ name, value })),
              ],
              ports: [{ name: "liveness-probe", protocol: "TCP", containerPort: NODE_TERMINATION_HANDLER_PROBES }],
              livenessProbe: {
                httpGet: { path: "/healthz", port: NODE_TERMINATION_HANDLER_PROBES },
                initialDelaySeconds: 5,
                periodSeconds: 5,
              },
              resources: { requests: { cpu: "50m", memory: "64Mi" } },
            },
          ],
          // On the control plane, before the cloud controller manager has initialised its nodes.
          nodeSelector: CONTROL_PLANE_NODES,
          tolerations: [...CONTROL_PLANE_TOLERATIONS, CLOUD_UNINITIALIZED_TOLERATION],
        },
      },
    },
  };
  // The chart's budget, which it renders for more than one replica: a drain evicts one handler at a time.
  const budget: K8sObject = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { ...metadata, namespace: NAMESPACE },
    spec: { selector: { matchLabels: SELECTOR }, maxUnavailable: 1 },
  };
  return {
    foundation: [
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { ...metadata, namespace: NAMESPACE } },
      { apiVersion: RBAC, kind: "ClusterRole", metadata, rules: RULES },
      {
        apiVersion: RBAC,
        kind: "ClusterRoleBinding",
        metadata,
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: NODE_TERMINATION_HANDLER },
        subjects: [{ kind: "ServiceAccount", name: NODE_TERMINATION_HANDLER, namespace: NAMESPACE }],
      },
    ],
    workloads: [...(replicas > 1 ? [budget] : []), deployment],
  };
}

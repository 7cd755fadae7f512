/** The Cilium operator Deployment `cilium-operator` and its PodDisruptionBudget. */
import type { K8sObject } from "../k8s/object";
import {
  CONTROL_PLANE_NODES,
  CONTROL_PLANE_TOLERATIONS,
  LINUX_NODES,
  NOT_READY_NODE_TOLERATIONS,
} from "../k8s/placement";
import type { WorkloadContext } from "./workloadContext";
import { CILIUM_OPERATOR_HEALTH } from "../wellKnownPorts";

/** The operator's health endpoint, on the host network. */
const HEALTH_PORT = CILIUM_OPERATOR_HEALTH;

const selector = { "io.cilium/app": "operator", name: "cilium-operator" };

/**
 * The chart's operator tolerations, in every mode: the control plane, and every taint a fresh node carries
 * (the operator must run before any node is Ready, and only it removes `node.cilium.io/agent-not-ready`).
 */
export const OPERATOR_TOLERATIONS = [...CONTROL_PLANE_TOLERATIONS, ...NOT_READY_NODE_TOLERATIONS];

export function operatorObjects(ctx: WorkloadContext): K8sObject[] {
  const labels = { ...selector, "app.kubernetes.io/part-of": "cilium", "app.kubernetes.io/name": "cilium-operator" };
  const named = ctx.pods.namedHealthPort;
  const probe = {
    httpGet: { host: "127.0.0.1", path: "/healthz", port: named ? "health" : HEALTH_PORT, scheme: "HTTP" },
    timeoutSeconds: 3,
  };
  const deployment: K8sObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "cilium-operator", namespace: ctx.namespace, labels },
    spec: {
      replicas: ctx.operatorReplicas,
      selector: { matchLabels: selector },
      // The chart's: a replacement may start before the old pod goes; with one replica the old one may go first.
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxSurge: "25%", maxUnavailable: ctx.operatorReplicas === 1 ? "100%" : "50%" },
      },
      template: {
        metadata: { labels, annotations: { "cilium.io/cilium-configmap-checksum": ctx.configChecksum } },
        spec: {
          containers: [
            {
              name: "cilium-operator",
              image: ctx.operatorImage,
              imagePullPolicy: "IfNotPresent",
              command: [ctx.operatorCommand],
              args: ["--config-dir=/tmp/cilium/config-map", "--debug=$(CILIUM_DEBUG)"],
              env: [
                { name: "K8S_NODE_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.nodeName" } } },
                {
                  name: "CILIUM_K8S_NAMESPACE",
                  valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } },
                },
                {
                  name: "CILIUM_DEBUG",
                  valueFrom: { configMapKeyRef: { name: "cilium-config", key: "debug", optional: true } },
                },
                ...ctx.apiEnv,
              ],
              ...(named && { ports: [{ name: "health", containerPort: HEALTH_PORT, hostPort: HEALTH_PORT }] }),
              livenessProbe: { ...probe, initialDelaySeconds: 60, periodSeconds: 10 },
              readinessProbe: { ...probe, initialDelaySeconds: 0, periodSeconds: 5, failureThreshold: 5 },
              volumeMounts: [{ name: "cilium-config-path", mountPath: "/tmp/cilium/config-map", readOnly: true }],
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          hostNetwork: true,
          ...(ctx.pods.hostUsers && { hostUsers: true }),
          restartPolicy: "Always",
          priorityClassName: "system-cluster-critical",
          serviceAccountName: "cilium-operator",
          automountServiceAccountToken: true,
          securityContext: { seccompProfile: { type: "RuntimeDefault" } },
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  labelSelector: { matchLabels: { "io.cilium/app": "operator" } },
                  topologyKey: "kubernetes.io/hostname",
                },
              ],
            },
          },
          // Any Linux node (the chart's default), or in ENI mode only the control plane, whose role holds the
          // ENI permissions.
          nodeSelector: ctx.operatorOnControlPlane ? CONTROL_PLANE_NODES : LINUX_NODES,
          tolerations: OPERATOR_TOLERATIONS,
          volumes: [{ name: "cilium-config-path", configMap: { name: "cilium-config" } }],
        },
      },
    },
  };
  const budget: K8sObject = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "cilium-operator", namespace: ctx.namespace, labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
  };
  return [deployment, budget];
}

/** The Cilium operator Deployment `cilium-operator` and its PodDisruptionBudget. */
import type { K8sObject } from "../k8s/object";
import { CONTROL_PLANE_PLACEMENT } from "../k8s/placement";
import type { WorkloadContext } from "./workloadContext";

const selector = { "io.cilium/app": "operator", name: "cilium-operator" };

/** The chart's default placement: any Linux node, the control plane included. */
const DEFAULT_PLACEMENT = {
  nodeSelector: { "kubernetes.io/os": "linux" },
  tolerations: [
    { key: "node-role.kubernetes.io/control-plane", operator: "Exists" },
    { key: "node.kubernetes.io/not-ready", operator: "Exists" },
    { key: "node.cloudprovider.kubernetes.io/uninitialized", operator: "Exists" },
  ],
};

export function operatorObjects(ctx: WorkloadContext): K8sObject[] {
  const labels = { ...selector, "app.kubernetes.io/part-of": "cilium", "app.kubernetes.io/name": "cilium-operator" };
  const probe = { httpGet: { host: "127.0.0.1", path: "/healthz", port: 9234, scheme: "HTTP" }, timeoutSeconds: 3 };
  const deployment: K8sObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "cilium-operator", namespace: ctx.namespace, labels },
    spec: {
      replicas: ctx.operatorReplicas,
      selector: { matchLabels: selector },
      // Host network and a fixed health port: a new pod cannot start beside the old one on the same node.
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
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
              ports: [{ name: "health", containerPort: 9234, hostPort: 9234, protocol: "TCP" }],
              livenessProbe: { ...probe, initialDelaySeconds: 60, periodSeconds: 10 },
              readinessProbe: { ...probe, initialDelaySeconds: 0, periodSeconds: 5, failureThreshold: 5 },
              volumeMounts: [{ name: "cilium-config-path", mountPath: "/tmp/cilium/config-map", readOnly: true }],
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          hostNetwork: true,
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
          ...(ctx.operatorOnControlPlane ? CONTROL_PLANE_PLACEMENT : DEFAULT_PLACEMENT),
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

/**
 * The driver's controller Deployment `ebs-csi-controller` and its PodDisruptionBudget: the plugin creates,
 * attaches and resizes volumes through the AWS API as the control-plane role, with the chart's sidecars.
 */
import { EBS_CSI_RELEASE } from "../../catalogs/awsAddonReleases";
import type { ClusterSpec } from "../../config/types";
import type { K8sObject } from "../k8s/object";
import { CLOUD_UNINITIALIZED_TOLERATION, CONTROL_PLANE_NODES, CONTROL_PLANE_TOLERATIONS } from "../k8s/placement";
import { EBS_CSI_HEALTH } from "../wellKnownPorts";
import {
  EBS_CSI_NAMESPACE,
  MEDIUM,
  NAME_LABELS,
  READ_ONLY,
  SMALL,
  servesVolumeAttributesClass,
  updatesAllocatableCount,
  workloadLabels,
} from "./labels";
import { byCodePoint } from "../codePointOrder";

const SOCKET_DIR = "/var/lib/csi/sockets/pluginproxy/";
const images = EBS_CSI_RELEASE.images;
const HARDENED = { ...READ_ONLY, seccompProfile: { type: "RuntimeDefault" } };
const socketMount = [{ name: "socket-dir", mountPath: SOCKET_DIR }];

/** A sidecar that talks to the plugin over its socket, with the chart's flags. */
const sidecar = (name: string, image: string, args: string[], vac = false) => ({
  name,
  image,
  imagePullPolicy: "IfNotPresent",
  args,
  env: [
    { name: "ADDRESS", value: `${SOCKET_DIR}csi.sock` },
    ...(vac ? [{ name: "ENABLE_VAC_FALLBACK", value: "true" }] : []),
  ],
  volumeMounts: socketMount,
  resources: MEDIUM,
  securityContext: HARDENED,
  terminationMessagePolicy: "FallbackToLogsOnError",
});

const probe = { httpGet: { path: "/healthz", port: "healthz" }, initialDelaySeconds: 10, timeoutSeconds: 60 };

/**
 * Volumes it creates carry `KubernetesCluster` and `kubernetes.io/cluster/<name>` (`--k8s-tag-cluster-id`),
 * which the role's volume statements require, and the user's cloud labels (`--extra-tags`).
 */
function pluginArgs(spec: ClusterSpec): string[] {
  const labels = Object.entries(spec.cloudLabels).sort(([a], [b]) => byCodePoint(a, b));
  return [
    "controller",
    "--endpoint=$(CSI_ENDPOINT)",
    ...(labels.length ? [`--extra-tags=${labels.map(([k, v]) => `${k}=${v}`).join(",")}`] : []),
    `--k8s-tag-cluster-id=${spec.clusterName}`,
    "--batching=true",
    "--logging-format=text",
    "--user-agent-extra=cilium-cluster",
    "--v=2",
  ];
}

export function controllerObjects(spec: ClusterSpec): K8sObject[] {
  const labels = workloadLabels("ebs-csi-controller");
  const withoutVolumeAttributesClass = servesVolumeAttributesClass(spec)
    ? []
    : ["--feature-gates=VolumeAttributesClass=false"];
  const deployment: K8sObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "ebs-csi-controller", namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
    spec: {
      // One per control-plane node at most: on the host network, two would claim one health port.
      replicas: spec.controlPlane.count > 1 ? 2 : 1,
      revisionHistoryLimit: 10,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: labels.selector },
      template: {
        metadata: { labels: labels.pod },
        spec: {
          // The control plane's role is its AWS identity, which instance metadata gives only to the host's
          // network namespace at the default hop limit (instanceMetadata.hopLimit).
          hostNetwork: true,
          dnsPolicy: "Default",
          nodeSelector: CONTROL_PLANE_NODES,
          serviceAccountName: "ebs-csi-controller-sa",
          priorityClassName: "system-cluster-critical",
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  podAffinityTerm: {
                    labelSelector: {
                      matchExpressions: [{ key: "app", operator: "In", values: ["ebs-csi-controller"] }],
                    },
                    topologyKey: "kubernetes.io/hostname",
                  },
                  weight: 100,
                },
              ],
            },
          },
          // Volumes may be provisioned before the cloud controller manager has initialised every node.
          tolerations: [
            ...CONTROL_PLANE_TOLERATIONS,
            CLOUD_UNINITIALIZED_TOLERATION,
            { key: "CriticalAddonsOnly", operator: "Exists" },
            { effect: "NoExecute", operator: "Exists", tolerationSeconds: 300 },
          ],
          securityContext: { fsGroup: 1000, runAsGroup: 1000, runAsNonRoot: true, runAsUser: 1000 },
          containers: [
            {
              name: "ebs-plugin",
              image: images.driver,
              imagePullPolicy: "IfNotPresent",
              args: pluginArgs(spec),
              env: [
                { name: "CSI_ENDPOINT", value: `unix://${SOCKET_DIR}csi.sock` },
                { name: "CSI_NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
              ],
              volumeMounts: socketMount,
              ports: [{ name: "healthz", containerPort: EBS_CSI_HEALTH, protocol: "TCP" }],
              livenessProbe: { ...probe, periodSeconds: 10, failureThreshold: 10 },
              readinessProbe: { ...probe, periodSeconds: 10, failureThreshold: 5 },
              resources: MEDIUM,
              securityContext: HARDENED,
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            sidecar(
              "csi-provisioner",
              images.provisioner,
              [
                "--timeout=60s",
                "--csi-address=$(ADDRESS)",
                "--v=2",
                "--feature-gates=Topology=true",
                "--extra-create-metadata",
                "--leader-election=true",
                "--default-fstype=ext4",
                "--kube-api-qps=20",
                "--kube-api-burst=100",
                "--worker-threads=100",
                "--retry-interval-max=30m",
                ...withoutVolumeAttributesClass,
              ],
              true,
            ),
            sidecar("csi-attacher", images.attacher, [
              "--timeout=6m",
              "--csi-address=$(ADDRESS)",
              "--v=2",
              "--leader-election=true",
              "--kube-api-qps=20",
              "--kube-api-burst=100",
              "--worker-threads=100",
              "--retry-interval-max=5m",
              ...(updatesAllocatableCount(spec) ? ["--feature-gates=MutableCSINodeAllocatableCount=true"] : []),
            ]),
            sidecar(
              "csi-resizer",
              images.resizer,
              [
                "--timeout=60s",
                "--extra-modify-metadata",
                "--csi-address=$(ADDRESS)",
                "--v=2",
                "--handle-volume-inuse-error=false",
                "--leader-election=true",
                "--kube-api-qps=20",
                "--kube-api-burst=100",
                "--workers=100",
                "--retry-interval-max=30m",
                ...withoutVolumeAttributesClass,
              ],
              true,
            ),
            {
              name: "liveness-probe",
              image: images.livenessProbe,
              imagePullPolicy: "IfNotPresent",
              args: ["--csi-address=/csi/csi.sock", "--probe-timeout=60s"],
              volumeMounts: [{ name: "socket-dir", mountPath: "/csi" }],
              resources: SMALL,
              securityContext: READ_ONLY,
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          volumes: [{ name: "socket-dir", emptyDir: {} }],
        },
      },
    },
  };
  const budget: K8sObject = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "ebs-csi-controller", namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
    spec: { selector: { matchLabels: labels.selector }, maxUnavailable: 1 },
  };
  return [budget, deployment];
}

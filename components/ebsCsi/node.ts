/**
 * The driver's node DaemonSet `ebs-csi-node`, on every Linux node (the chart's tolerations: every taint),
 * which formats and mounts the volumes attached to its node and registers the driver with the kubelet.
 */
import { EBS_CSI_RELEASE } from "../../catalogs/awsAddonReleases";
import type { K8sObject } from "../k8s/object";
import { LINUX_NODES } from "../k8s/placement";
import { EBS_CSI_HEALTH, EBS_CSI_REGISTRAR_HEALTH } from "../wellKnownPorts";
import { DRIVER_NAME, EBS_CSI_NAMESPACE, MEDIUM, NAME_LABELS, READ_ONLY, SMALL, workloadLabels } from "./labels";

const PLUGIN_DIR = `/var/lib/kubelet/plugins/${DRIVER_NAME}/`;
const images = EBS_CSI_RELEASE.images;
const healthz = (port: string) => ({ httpGet: { path: "/healthz", port } });

export const EBS_NODE_AFFINITY = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "Exists" }] }],
    },
  },
};

export function nodeDaemonSet(): K8sObject {
  const labels = workloadLabels("ebs-csi-node");
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "ebs-csi-node", namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: labels.selector },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "10%" } },
      template: {
        metadata: { labels: labels.pod },
        spec: {
          nodeSelector: LINUX_NODES,
          // Only on nodes the cloud controller manager has initialised (their zone label): before, the plugin
          // finds no zone for its node and exits, over and over (kOps's values set the same).
          affinity: EBS_NODE_AFFINITY,
          serviceAccountName: "ebs-csi-node-sa",
          terminationGracePeriodSeconds: 30,
          priorityClassName: "system-node-critical",
          tolerations: [{ operator: "Exists" }],
          hostNetwork: false,
          securityContext: { fsGroup: 0, runAsGroup: 0, runAsNonRoot: false, runAsUser: 0 },
          containers: [
            {
              name: "ebs-plugin",
              image: images.driver,
              imagePullPolicy: "IfNotPresent",
              args: [
                "node",
                "--endpoint=$(CSI_ENDPOINT)",
                `--csi-mount-point-prefix=/var/lib/kubelet/plugins/kubernetes.io/csi/${DRIVER_NAME}/`,
                "--logging-format=text",
                "--v=2",
              ],
              env: [
                { name: "CSI_ENDPOINT", value: "unix:/csi/csi.sock" },
                { name: "CSI_NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
              ],
              volumeMounts: [
                { name: "kubelet-dir", mountPath: "/var/lib/kubelet", mountPropagation: "Bidirectional" },
                { name: "plugin-dir", mountPath: "/csi" },
                { name: "device-dir", mountPath: "/dev" },
              ],
              ports: [{ name: "healthz", containerPort: EBS_CSI_HEALTH, protocol: "TCP" }],
              livenessProbe: {
                ...healthz("healthz"),
                initialDelaySeconds: 10,
                timeoutSeconds: 3,
                periodSeconds: 10,
                failureThreshold: 5,
              },
              readinessProbe: { ...healthz("healthz"), timeoutSeconds: 3, periodSeconds: 5, failureThreshold: 3 },
              resources: MEDIUM,
              securityContext: { privileged: true, readOnlyRootFilesystem: true },
              lifecycle: { preStop: { exec: { command: ["/bin/aws-ebs-csi-driver", "pre-stop-hook"] } } },
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "node-driver-registrar",
              image: images.nodeDriverRegistrar,
              imagePullPolicy: "IfNotPresent",
              args: [
                "--csi-address=$(ADDRESS)",
                "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)",
                `--http-endpoint=0.0.0.0:${EBS_CSI_REGISTRAR_HEALTH}`,
                "--v=2",
              ],
              env: [
                { name: "ADDRESS", value: "/csi/csi.sock" },
                { name: "DRIVER_REG_SOCK_PATH", value: `${PLUGIN_DIR}csi.sock` },
              ],
              ports: [{ name: "healthz-ndr", containerPort: EBS_CSI_REGISTRAR_HEALTH }],
              livenessProbe: {
                ...healthz("healthz-ndr"),
                initialDelaySeconds: 30,
                periodSeconds: 90,
                timeoutSeconds: 15,
              },
              volumeMounts: [
                { name: "plugin-dir", mountPath: "/csi" },
                { name: "registration-dir", mountPath: "/registration" },
                { name: "probe-dir", mountPath: PLUGIN_DIR },
              ],
              resources: SMALL,
              securityContext: READ_ONLY,
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "liveness-probe",
              image: images.livenessProbe,
              imagePullPolicy: "IfNotPresent",
              args: ["--csi-address=/csi/csi.sock"],
              volumeMounts: [{ name: "plugin-dir", mountPath: "/csi" }],
              resources: SMALL,
              securityContext: READ_ONLY,
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          volumes: [
            { name: "kubelet-dir", hostPath: { path: "/var/lib/kubelet", type: "Directory" } },
            { name: "plugin-dir", hostPath: { path: PLUGIN_DIR, type: "DirectoryOrCreate" } },
            { name: "registration-dir", hostPath: { path: "/var/lib/kubelet/plugins_registry/", type: "Directory" } },
            { name: "device-dir", hostPath: { path: "/dev", type: "Directory" } },
            { name: "probe-dir", emptyDir: {} },
          ],
        },
      },
    },
  };
}

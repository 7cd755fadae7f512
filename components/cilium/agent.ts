/** The Cilium agent DaemonSet `cilium` (non-privileged mode, as the chart renders it for each line). */
import type { K8sObject } from "../k8s/object";
import type { WorkloadContext } from "./workloadContext";
import { CILIUM_AGENT_HEALTH } from "../wellKnownPorts";

const caps = (add: string[]) => ({
  capabilities: { add, drop: ["ALL"] },
  seLinuxOptions: { level: "s0", type: "spc_t" },
});

/** The agent's health endpoint, on the host network. */
const HEALTH_PORT = CILIUM_AGENT_HEALTH;

const hostPath = (name: string, path: string, type: string) => ({ name, hostPath: { path, type } });

/** A Cluster Mesh client certificate, mounted if its Secret exists (the chart's projected sources). */
const clustermeshCert = (name: string, prefix: string) => ({
  secret: {
    name,
    optional: true,
    items: [
      { key: "tls.key", path: `${prefix}-etcd-client.key` },
      { key: "tls.crt", path: `${prefix}-etcd-client.crt` },
      { key: "ca.crt", path: `${prefix}-etcd-client-ca.crt` },
    ],
  },
});

const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { apiVersion: "v1", fieldPath } },
});

const optionalConfigEnv = (name: string, key: string) => ({
  name,
  valueFrom: { configMapKeyRef: { name: "cilium-config", key, optional: true } },
});

export function agentDaemonSet(ctx: WorkloadContext): K8sObject {
  const labels = {
    "k8s-app": "cilium",
    "app.kubernetes.io/name": "cilium-agent",
    "app.kubernetes.io/part-of": "cilium",
  };
  const baseEnv = [
    fieldEnv("K8S_NODE_NAME", "spec.nodeName"),
    fieldEnv("CILIUM_K8S_NAMESPACE", "metadata.namespace"),
    ...ctx.apiEnv,
  ];
  const traits = ctx.pods;
  const features = ctx.agentAdditions;
  const ports = [
    ...(traits.namedHealthPort
      ? [{ name: "health", containerPort: HEALTH_PORT, hostPort: HEALTH_PORT, protocol: "TCP" }]
      : []),
    ...features.ports,
  ];
  const healthPort = traits.namedHealthPort ? "health" : HEALTH_PORT;
  const probe = (extra: Record<string, unknown>, headers: { name: string; value: string }[] = []) => ({
    httpGet: {
      host: "127.0.0.1",
      path: "/healthz",
      port: healthPort,
      scheme: "HTTP",
      httpHeaders: [{ name: "brief", value: "true" }, ...headers],
    },
    ...extra,
  });
  const nsenterScript = (binary: string, namespaces: string, args: string) =>
    `cp /usr/bin/${binary} /hostbin/${binary};\n` +
    `nsenter ${namespaces} "\${BIN_PATH}/${binary}"${args};\n` +
    `rm /hostbin/${binary}\n`;
  const hostMounts = "--cgroup=/hostproc/1/ns/cgroup --mount=/hostproc/1/ns/mnt";
  const hostBinMounts = [
    { name: "hostproc", mountPath: "/hostproc" },
    { name: "cni-path", mountPath: "/hostbin" },
  ];
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "cilium", namespace: ctx.namespace, labels },
    spec: {
      selector: { matchLabels: { "k8s-app": "cilium" } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } },
      template: {
        metadata: {
          labels,
          annotations: {
            "cilium.io/cilium-configmap-checksum": ctx.configChecksum,
            "kubectl.kubernetes.io/default-container": "cilium-agent",
          },
        },
        spec: {
          securityContext: { appArmorProfile: { type: "Unconfined" }, seccompProfile: { type: "Unconfined" } },
          initContainers: [
            {
              name: "config",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: ["cilium-dbg", "build-config", ...(traits.configInitArgs ?? [])],
              env: baseEnv,
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
              ...(traits.configInitCapabilities && {
                securityContext: { capabilities: { add: traits.configInitCapabilities, drop: ["ALL"] } },
              }),
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "mount-cgroup",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: [traits.initShell, "-ec", nsenterScript("cilium-mount", hostMounts, " $CGROUP_ROOT")],
              env: [
                { name: "CGROUP_ROOT", value: "/run/cilium/cgroupv2" },
                { name: "BIN_PATH", value: "/opt/cni/bin" },
              ],
              volumeMounts: hostBinMounts,
              securityContext: caps(["SYS_ADMIN", "SYS_CHROOT", "SYS_PTRACE"]),
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "apply-sysctl-overwrites",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: [traits.initShell, "-ec", nsenterScript("cilium-sysctlfix", "--mount=/hostproc/1/ns/mnt", "")],
              env: [{ name: "BIN_PATH", value: "/opt/cni/bin" }],
              volumeMounts: hostBinMounts,
              securityContext: caps(["SYS_ADMIN", "SYS_CHROOT", "SYS_PTRACE"]),
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "mount-bpf-fs",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: ["/bin/bash", "-c", "--"],
              args: ['mount | grep "/sys/fs/bpf type bpf" || mount -t bpf bpf /sys/fs/bpf'],
              securityContext: { privileged: true },
              volumeMounts: [{ name: "bpf-maps", mountPath: "/sys/fs/bpf", mountPropagation: "Bidirectional" }],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "clean-cilium-state",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: ["/init-container.sh"],
              env: [
                optionalConfigEnv("CILIUM_ALL_STATE", "clean-cilium-state"),
                optionalConfigEnv("CILIUM_BPF_STATE", "clean-cilium-bpf-state"),
                optionalConfigEnv("WRITE_CNI_CONF_WHEN_READY", "write-cni-conf-when-ready"),
                ...ctx.apiEnv,
              ],
              securityContext: caps(["NET_ADMIN", "SYS_MODULE", "SYS_ADMIN", "SYS_RESOURCE"]),
              volumeMounts: [
                { name: "bpf-maps", mountPath: "/sys/fs/bpf" },
                { name: "cilium-cgroup", mountPath: "/run/cilium/cgroupv2", mountPropagation: "HostToContainer" },
                { name: "cilium-run", mountPath: "/var/run/cilium" },
              ],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "install-cni-binaries",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: ["/install-plugin.sh"],
              resources: {
                ...(traits.installCniLimits && { limits: { cpu: 1, memory: "1Gi" } }),
                requests: { cpu: "100m", memory: "10Mi" },
              },
              securityContext: { capabilities: { drop: ["ALL"] }, seLinuxOptions: { level: "s0", type: "spc_t" } },
              volumeMounts: [{ name: "cni-path", mountPath: "/host/opt/cni/bin" }],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          containers: [
            {
              name: "cilium-agent",
              image: ctx.agentImage,
              imagePullPolicy: "IfNotPresent",
              command: ["cilium-agent"],
              args: ["--config-dir=/tmp/cilium/config-map"],
              env: [
                fieldEnv("K8S_NODE_NAME", "spec.nodeName"),
                fieldEnv("CILIUM_K8S_NAMESPACE", "metadata.namespace"),
                { name: "CILIUM_CLUSTERMESH_CONFIG", value: "/var/lib/cilium/clustermesh/" },
                // The Go runtime collects garbage before the container's memory limit (the node's allocatable without one).
                { name: "GOMEMLIMIT", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1" } } },
                ...ctx.apiEnv,
                // Back off on API errors from 1 s up to 120 s, so every agent does not hammer a recovering API server.
                { name: "KUBE_CLIENT_BACKOFF_BASE", value: "1" },
                { name: "KUBE_CLIENT_BACKOFF_DURATION", value: "120" },
              ],
              // Up to 300 × 2 s for a first start (BPF compilation, waiting for ENI addresses from the operator).
              startupProbe: probe({
                failureThreshold: 300,
                periodSeconds: 2,
                successThreshold: 1,
                initialDelaySeconds: 5,
              }),
              // An API outage must not fail every agent's liveness check and restart the whole data path.
              livenessProbe: probe(
                { periodSeconds: 30, successThreshold: 1, failureThreshold: 10, timeoutSeconds: 5 },
                [{ name: "require-k8s-connectivity", value: "false" }],
              ),
              readinessProbe: probe({ periodSeconds: 30, successThreshold: 1, failureThreshold: 3, timeoutSeconds: 5 }),
              lifecycle: { preStop: { exec: { command: ["/cni-uninstall.sh"] } } },
              ...(ports.length > 0 && { ports }),
              resources: { requests: { cpu: "100m", memory: "128Mi" } },
              securityContext: caps(traits.capabilities),
              terminationMessagePolicy: "FallbackToLogsOnError",
              volumeMounts: [
                { name: "host-proc-sys-net", mountPath: "/host/proc/sys/net" },
                { name: "host-proc-sys-kernel", mountPath: "/host/proc/sys/kernel" },
                { name: "bpf-maps", mountPath: "/sys/fs/bpf", mountPropagation: "HostToContainer" },
                { name: "cilium-run", mountPath: "/var/run/cilium" },
                { name: "cilium-netns", mountPath: "/var/run/cilium/netns", mountPropagation: "HostToContainer" },
                { name: "etc-cni-netd", mountPath: "/host/etc/cni/net.d" },
                { name: "clustermesh-secrets", mountPath: "/var/lib/cilium/clustermesh", readOnly: true },
                { name: "lib-modules", mountPath: "/lib/modules", readOnly: true },
                { name: "xtables-lock", mountPath: "/run/xtables.lock" },
                { name: "tmp", mountPath: "/tmp" },
                ...features.volumeMounts,
              ],
            },
          ],
          hostNetwork: true,
          ...(traits.hostUsers && { hostUsers: true }),
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { "k8s-app": "cilium" } }, topologyKey: "kubernetes.io/hostname" },
              ],
            },
          },
          priorityClassName: "system-node-critical",
          serviceAccountName: "cilium",
          automountServiceAccountToken: true,
          terminationGracePeriodSeconds: 1,
          restartPolicy: "Always",
          nodeSelector: { "kubernetes.io/os": "linux" },
          tolerations: [{ operator: "Exists" }],
          volumes: [
            { name: "tmp", emptyDir: {} },
            hostPath("cilium-run", "/var/run/cilium", "DirectoryOrCreate"),
            hostPath("cilium-netns", "/var/run/netns", "DirectoryOrCreate"),
            hostPath("bpf-maps", "/sys/fs/bpf", "DirectoryOrCreate"),
            hostPath("hostproc", "/proc", "Directory"),
            hostPath("cilium-cgroup", "/run/cilium/cgroupv2", "DirectoryOrCreate"),
            hostPath("cni-path", "/opt/cni/bin", "DirectoryOrCreate"),
            hostPath("etc-cni-netd", "/etc/cni/net.d", "DirectoryOrCreate"),
            { name: "lib-modules", hostPath: { path: "/lib/modules" } },
            hostPath("xtables-lock", "/run/xtables.lock", "FileOrCreate"),
            {
              name: "clustermesh-secrets",
              projected: {
                defaultMode: 0o400,
                sources: [
                  { secret: { name: "cilium-clustermesh", optional: true } },
                  clustermeshCert("clustermesh-apiserver-remote-cert", "common"),
                  clustermeshCert("clustermesh-apiserver-local-cert", "local"),
                ],
              },
            },
            hostPath("host-proc-sys-net", "/proc/sys/net", "Directory"),
            hostPath("host-proc-sys-kernel", "/proc/sys/kernel", "Directory"),
            ...features.volumes,
          ],
        },
      },
    },
  };
}

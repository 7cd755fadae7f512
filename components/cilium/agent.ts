/** The Cilium agent DaemonSet `cilium` (non-privileged mode, as the chart renders it for 1.18/1.19). */
import type { K8sObject } from "../k8s/object";
import type { WorkloadContext } from "./workloadContext";

const caps = (add: string[]) => ({
  capabilities: { add, drop: ["ALL"] },
  seLinuxOptions: { level: "s0", type: "spc_t" },
});

const hostPath = (name: string, path: string, type: string) => ({ name, hostPath: { path, type } });

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
  const probe = (extra: Record<string, unknown>) => ({
    httpGet: {
      host: "127.0.0.1",
      path: "/healthz",
      port: 9879,
      scheme: "HTTP",
      httpHeaders: [{ name: "brief", value: "true" }],
    },
    ...extra,
  });
  const nsenterScript = (binary: string, args: string) =>
    `cp /usr/bin/${binary} /hostbin/${binary};\n` +
    `nsenter --cgroup=/hostproc/1/ns/cgroup --mount=/hostproc/1/ns/mnt "\${BIN_PATH}/${binary}" ${args};\n` +
    `rm /hostbin/${binary}`;
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
          securityContext: { appArmorProfile: { type: "Unconfined" } },
          initContainers: [
            {
              name: "config",
              image: ctx.agentImage,
              command: ["cilium-dbg", "build-config"],
              env: baseEnv,
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "mount-cgroup",
              image: ctx.agentImage,
              command: ["sh", "-ec", nsenterScript("cilium-mount", "$CGROUP_ROOT")],
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
              command: ["sh", "-ec", nsenterScript("cilium-sysctlfix", "")],
              env: [{ name: "BIN_PATH", value: "/opt/cni/bin" }],
              volumeMounts: hostBinMounts,
              securityContext: caps(["SYS_ADMIN", "SYS_CHROOT", "SYS_PTRACE"]),
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "mount-bpf-fs",
              image: ctx.agentImage,
              command: ["/bin/bash", "-c", "--"],
              args: ['mount | grep "/sys/fs/bpf type bpf" || mount -t bpf bpf /sys/fs/bpf'],
              securityContext: { privileged: true },
              volumeMounts: [{ name: "bpf-maps", mountPath: "/sys/fs/bpf", mountPropagation: "Bidirectional" }],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              name: "clean-cilium-state",
              image: ctx.agentImage,
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
              command: ["/install-plugin.sh"],
              resources: { requests: { cpu: "100m", memory: "10Mi" } },
              securityContext: { capabilities: { drop: ["ALL"] }, seLinuxOptions: { level: "s0", type: "spc_t" } },
              volumeMounts: [{ name: "cni-path", mountPath: "/host/opt/cni/bin" }],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          containers: [
            {
              name: "cilium-agent",
              image: ctx.agentImage,
              command: ["cilium-agent"],
              args: ["--config-dir=/tmp/cilium/config-map"],
              env: [...baseEnv, { name: "CILIUM_CLUSTERMESH_CONFIG", value: "/var/lib/cilium/clustermesh/" }],
              startupProbe: probe({
                failureThreshold: 105,
                periodSeconds: 2,
                successThreshold: 1,
                initialDelaySeconds: 5,
              }),
              livenessProbe: probe({ periodSeconds: 30, successThreshold: 1, failureThreshold: 10, timeoutSeconds: 5 }),
              readinessProbe: probe({ periodSeconds: 30, successThreshold: 1, failureThreshold: 3, timeoutSeconds: 5 }),
              lifecycle: { preStop: { exec: { command: ["/cni-uninstall.sh"] } } },
              resources: { requests: { cpu: "100m", memory: "128Mi" } },
              securityContext: caps([
                "CHOWN",
                "KILL",
                "NET_ADMIN",
                "NET_RAW",
                "IPC_LOCK",
                "SYS_MODULE",
                "SYS_ADMIN",
                "SYS_RESOURCE",
                "DAC_OVERRIDE",
                "FOWNER",
                "SETGID",
                "SETUID",
                "SYSLOG",
              ]),
              terminationMessagePolicy: "FallbackToLogsOnError",
              volumeMounts: [
                { name: "host-proc-sys-net", mountPath: "/host/proc/sys/net" },
                { name: "host-proc-sys-kernel", mountPath: "/host/proc/sys/kernel" },
                { name: "bpf-maps", mountPath: "/sys/fs/bpf", mountPropagation: "HostToContainer" },
                { name: "cilium-cgroup", mountPath: "/run/cilium/cgroupv2" },
                { name: "cilium-run", mountPath: "/var/run/cilium" },
                { name: "cilium-netns", mountPath: "/var/run/cilium/netns", mountPropagation: "HostToContainer" },
                { name: "etc-cni-netd", mountPath: "/host/etc/cni/net.d" },
                { name: "clustermesh-secrets", mountPath: "/var/lib/cilium/clustermesh", readOnly: true },
                { name: "lib-modules", mountPath: "/lib/modules", readOnly: true },
                { name: "xtables-lock", mountPath: "/run/xtables.lock" },
                { name: "tmp", mountPath: "/tmp" },
              ],
            },
          ],
          hostNetwork: true,
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
            hostPath("lib-modules", "/lib/modules", ""),
            hostPath("xtables-lock", "/run/xtables.lock", "FileOrCreate"),
            {
              name: "clustermesh-secrets",
              projected: {
                defaultMode: 0o400,
                sources: [{ secret: { name: "cilium-clustermesh", optional: true } }],
              },
            },
            hostPath("host-proc-sys-net", "/proc/sys/net", "Directory"),
            hostPath("host-proc-sys-kernel", "/proc/sys/kernel", "Directory"),
          ],
        },
      },
    },
  };
}

/**
 * The systemd units user data installs: the bootstrap as a service that systemd runs again until it
 * succeeds (kOps runs nodeup the same way; cloud-init runs user data once and never again), a timer that
 * reports the instance unhealthy if it has not joined by its deadline. Nothing here touches etcd at shutdown:
 * the control-plane tools' etcd-lifecycle.service handles a member only when its instance terminates
 * (controlPlaneTools.ts). Pure: config in, unit files out.
 */
import type { BootstrapConfig } from "./bootstrapConfig";

export const BOOTSTRAP_SCRIPT = "/usr/local/sbin/cilium-cluster-bootstrap";
export const BOOTSTRAP_SERVICE = "cilium-cluster-bootstrap.service";
export const JOIN_DEADLINE_SERVICE = "cilium-cluster-join-deadline.service";
export const JOIN_DEADLINE_TIMER = "cilium-cluster-join-deadline.timer";
/** Written by the bootstrap once kubeadm has joined (bootstrap/kubeadm.sh `joined_marker`). */
export const JOINED_MARKER = "/var/lib/cilium-cluster/joined";

/** Seconds between two runs of a failed bootstrap. Each download and AWS call also backs off inside a run. */
export const BOOTSTRAP_RESTART_SECONDS = 30;

/** The service's environment: the AWS CLI (a snap) on PATH, and the CLI's own retries of throttled calls. */
const ENVIRONMENT = [
  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin",
  "AWS_RETRY_MODE=standard",
  "AWS_MAX_ATTEMPTS=10",
];

const unit = (sections: Record<string, string[]>) =>
  Object.entries(sections)
    .map(([name, lines]) => [`[${name}]`, ...lines].join("\n"))
    .join("\n\n") + "\n";

export function systemdUnits(config: BootstrapConfig): Record<string, string> {
  return {
    [BOOTSTRAP_SERVICE]: unit({
      Unit: [
        `Description=cilium-cluster bootstrap of ${config.instanceGroup}: join this node to the cluster`,
        "Wants=network-online.target",
        "After=network-online.target",
        // Never stop retrying: the join deadline, not systemd, decides when a node is given up.
        "StartLimitIntervalSec=0",
      ],
      Service: [
        "Type=oneshot",
        "RemainAfterExit=yes",
        `ExecStart=${BOOTSTRAP_SCRIPT}`,
        "Restart=on-failure",
        `RestartSec=${BOOTSTRAP_RESTART_SECONDS}s`,
        "TimeoutStartSec=30min",
        ...ENVIRONMENT.map((e) => `Environment=${e}`),
        "SyslogIdentifier=cilium-cluster-bootstrap",
      ],
      Install: ["WantedBy=multi-user.target"],
    }),
    [JOIN_DEADLINE_SERVICE]: unit({
      Unit: [
        "Description=Report this instance unhealthy to its Auto Scaling group: it has not joined the cluster",
        `ConditionPathExists=!${JOINED_MARKER}`,
      ],
      Service: [
        "Type=oneshot",
        `ExecStart=${BOOTSTRAP_SCRIPT} report-unhealthy`,
        ...ENVIRONMENT.map((e) => `Environment=${e}`),
        "SyslogIdentifier=cilium-cluster-bootstrap",
      ],
    }),
    [JOIN_DEADLINE_TIMER]: unit({
      Unit: [`Description=The deadline for this node to join the cluster`],
      Timer: [`OnBootSec=${config.joinDeadlineMinutes}min`, "AccuracySec=30s"],
      Install: ["WantedBy=timers.target"],
    }),
  };
}

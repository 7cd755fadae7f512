/**
 * The systemd units user data installs: the bootstrap as a service that systemd runs again until it
 * succeeds (kOps runs nodeup the same way; cloud-init runs user data once and never again). Nothing here
 * touches etcd at shutdown: the control-plane tools' etcd-lifecycle.service handles a member only when its
 * instance terminates (controlPlaneTools.ts). Pure: config in, unit files out.
 */
import { TIMEOUTS } from "../timeouts";
import type { BootstrapConfig } from "./bootstrapConfig";

export const BOOTSTRAP_SCRIPT = "/usr/local/sbin/cilium-cluster-bootstrap";
export const BOOTSTRAP_SERVICE = "cilium-cluster-bootstrap.service";
/** Written by the bootstrap once every step has succeeded (bootstrap/kubeadm.sh `joined_marker`). */
export const JOINED_MARKER = "/var/lib/cilium-cluster/joined";

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
        // Never stop retrying: the launch hook's join deadline, not systemd, decides when a node is given up.
        "StartLimitIntervalSec=0",
      ],
      Service: [
        "Type=oneshot",
        "RemainAfterExit=yes",
        `ExecStart=${BOOTSTRAP_SCRIPT}`,
        "Restart=on-failure",
        `RestartSec=${TIMEOUTS.nodes.bootstrapRestartSeconds}s`,
        // The most one run may take, and the pause between runs (components/timeouts.ts).
        `TimeoutStartSec=${TIMEOUTS.nodes.bootstrapRunMinutes}min`,
        ...ENVIRONMENT.map((e) => `Environment=${e}`),
        "SyslogIdentifier=cilium-cluster-bootstrap",
      ],
      Install: ["WantedBy=multi-user.target"],
    }),
  };
}

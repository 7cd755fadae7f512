/**
 * The systemd units user data installs: the bootstrap as a service that systemd runs again until it
 * succeeds (kOps runs nodeup the same way; cloud-init runs user data once and never again), and on the
 * control plane the units that run the bootstrap's own functions later (`cilium-cluster-bootstrap
 * FUNCTION`): etcd snapshots, the members' reconciliation with the instances, the member's leaving when Auto Scaling terminates the instance, the
 * certificates' renewal, the workers' credentials to join, the kubelets' serving certificates and the end of an upgrade. Nothing touches etcd at a reboot or a stop. Pure: config in, unit files out.
 */
import { TIMEOUTS } from "../timeouts";
import type { BootstrapConfig } from "./bootstrapConfig";
import { ETCD_LIFECYCLE_HOOK } from "./lifecycleHooks";

export const BOOTSTRAP_SCRIPT = "/usr/local/sbin/cilium-cluster-bootstrap";
export const BOOTSTRAP_SERVICE = "cilium-cluster-bootstrap.service";

/**
 * The service's environment: the AWS CLI (a snap) on PATH, the CLI's own retries of throttled calls, and of
 * its reads of the instance's credentials from instance metadata: by default one try of one second, after
 * which a call fails "Unable to locate credentials" (botocore's metadata fetcher; a busy node's bootstrap
 * failed so in the box, half-way through taking over the init record).
 */
const ENVIRONMENT = [
  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin",
  "AWS_RETRY_MODE=standard",
  "AWS_MAX_ATTEMPTS=10",
  "AWS_METADATA_SERVICE_TIMEOUT=5",
  "AWS_METADATA_SERVICE_NUM_ATTEMPTS=3",
];

const unit = (sections: Record<string, string[]>) =>
  Object.entries(sections)
    .map(([name, lines]) => [`[${name}]`, ...lines].join("\n"))
    .join("\n\n") + "\n";

/**
 * The control plane's units that the bootstrap enables and starts once the node has joined
 * (start_control_plane_services, which reads them from the script's header): the ones with an [Install]
 * section but etcd-leave, started before the join (arm_etcd_leave); the services the timers run are started
 * by their timers.
 */
export const CONTROL_PLANE_STARTED_UNITS = [
  "etcd-backup.timer",
  "etcd-members.timer",
  "certificate-renewal.timer",
  "node-credentials.service",
  "kubelet-serving.service",
  "upgrade-finish.timer",
];

/** The control plane's units (CONTROL_PLANE_STARTED_UNITS and the services their timers run). */
function controlPlaneUnits(config: BootstrapConfig): Record<string, string> {
  const runs = (fn: string) => [
    ...ENVIRONMENT.map((e) => `Environment=${e}`),
    `ExecStart=${BOOTSTRAP_SCRIPT} ${fn}`,
    `SyslogIdentifier=cilium-cluster-${fn.replace(/_/g, "-")}`,
  ];
  /** NAME.service, a oneshot run of FN, and NAME.timer, which starts it on TIMER's schedule. */
  const timed = (name: string, fn: string, what: string, timer: { what: string; schedule: string[] }) => ({
    [`${name}.service`]: unit({ Unit: [`Description=${what}`], Service: ["Type=oneshot", ...runs(fn)] }),
    [`${name}.timer`]: unit({
      Unit: [`Description=${timer.what}`],
      Timer: timer.schedule,
      Install: ["WantedBy=timers.target"],
    }),
  });
  return {
    ...timed(
      "etcd-backup",
      "etcd_backup",
      "Upload an etcd snapshot to the cluster's backup bucket when this member leads",
      {
        what: `An etcd snapshot every ${config.backupIntervalMinutes} minutes`,
        schedule: ["OnBootSec=5min", `OnUnitActiveSec=${config.backupIntervalMinutes}min`, "RandomizedDelaySec=30s"],
      },
    ),
    // Every minute: what the leader finds is a member list and a status per member; the others ask their own
    // member whether it leads, and stop.
    ...timed(
      "etcd-members",
      "reconcile_etcd_members",
      "Remove etcd members whose instances are gone, or that stopped answering, when this member leads",
      {
        what: "Reconcile the etcd members with the control-plane instances every minute",
        schedule: ["OnBootSec=2min", "OnUnitActiveSec=1min"],
      },
    ),
    "etcd-leave.service": unit({
      Unit: [
        "Description=Remove this node's etcd member when Auto Scaling terminates the instance",
        "Documentation=https://docs.aws.amazon.com/autoscaling/ec2/userguide/lifecycle-hooks.html",
        "After=kubelet.service",
      ],
      Service: [...runs(`leave_etcd_on_termination ${ETCD_LIFECYCLE_HOOK}`), "Restart=on-failure", "RestartSec=10s"],
      Install: ["WantedBy=multi-user.target"],
    }),
    ...timed(
      "certificate-renewal",
      "renew_certificates_if_due",
      "Renew the control plane's kubeadm certificates when they expire within 90 days",
      {
        what: "Check the control plane's certificates daily",
        schedule: ["OnBootSec=1h", "OnUnitActiveSec=1d", "RandomizedDelaySec=1h"],
      },
    ),
    // A loop, not a timer: a run every few seconds would fill the journal with its starts.
    "node-credentials.service": unit({
      Unit: [
        "Description=Issue each new worker instance its credential for its own node name",
        "After=kubelet.service",
      ],
      Service: [...runs("issue_node_credentials_while_up"), "Restart=always", "RestartSec=10s"],
      Install: ["WantedBy=multi-user.target"],
    }),
    // The same loop's shape: a kubelet waits for its serving certificate until the next round.
    "kubelet-serving.service": unit({
      Unit: [
        "Description=Approve each kubelet's serving certificate for its own instance's names and addresses",
        "After=kubelet.service",
      ],
      Service: [...runs("approve_serving_certificates_while_up"), "Restart=always", "RestartSec=10s"],
      Install: ["WantedBy=multi-user.target"],
    }),
    // Every 10 minutes: an upgrade's cluster-wide phases and addons follow soon after its last old
    // control-plane node has left. A check with nothing to do reads the cluster's kubeadm-config
    // (bootstrap/upgrade.sh, finish_upgrade).
    ...timed(
      "upgrade-finish",
      "finish_upgrade",
      "Finish an upgrade once every control-plane node runs this node's Kubernetes release: kubeadm's cluster-wide phases and addons",
      {
        what: "Check for an upgrade to finish every 10 minutes",
        schedule: ["OnBootSec=10min", "OnUnitActiveSec=10min", "RandomizedDelaySec=1min"],
      },
    ),
  };
}

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
    ...(config.role === "control-plane" ? controlPlaneUnits(config) : {}),
  };
}

/**
 * The header of a group's bootstrap script: the facts its bash shares with the rest of the program, as
 * readonly variables, and what the node is told (the bootstrap config) with the hash of it. Only variables
 * the script reads are written, so a field or fact that no module of a group reads leaves that group's user
 * data as it was: adding one rolls only the groups that use it. Pure.
 */
import { createHash } from "crypto";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { INSTANCE_CREDENTIAL_SESSION_TAG } from "./secretPaths";
import { TIMEOUTS } from "../timeouts";
import { ETCD_CLIENT, ETCD_PEER } from "../wellKnownPorts";
import type { BootstrapConfig } from "./bootstrapConfig";
import { PATCHES_DIRECTORY } from "./kubeadmConfig";
import {
  ADMIN_GROUP,
  API_PIN_MARK,
  AUTHENTICATOR_WEBHOOK_FILE,
  ENCRYPTION_CONFIG_FILE,
  ETCD_UNHEALTHY_DIR,
  UPGRADE_FINISHED_ANNOTATION,
  UPGRADE_MOVED_ANNOTATION,
  JOINED_MARKER,
  JOIN_CREDENTIAL_FILE,
  KUBEADM_JOINED_MARKER,
  KUBERNETES_DIR,
  NODE_ROLE_FILE,
  NODE_TERMINATION_HANDLER,
  TOOLS_DIR,
} from "./nodeFacts";
import { shellQuote } from "./shell";
import {
  LATEST_SNAPSHOT_KEY,
  SHARED_PKI_FILES,
  SNAPSHOT_KEY_PATTERN,
  SNAPSHOT_METRIC,
  SNAPSHOT_PREFIX,
} from "./controlPlaneNames";
import { CONTROL_PLANE_STARTED_UNITS } from "./systemdUnits";
import {
  AUTHENTICATOR_ADDRESS,
  AUTHENTICATOR_POD_FILE,
  AUTHENTICATOR_PORT,
  AUTHENTICATOR_STATE_DIR,
  AUTHENTICATOR_UID,
} from "./authenticator";

/** The shell variable of each bootstrap-config field: the compiler rejects a field left out. */
export const SHELL_VARIABLES: { [K in keyof BootstrapConfig]-?: string } = {
  clusterName: "CLUSTER_NAME",
  instanceGroup: "INSTANCE_GROUP",
  role: "ROLE",
  initZone: "INIT_ZONE",
  kubernetesVersion: "KUBERNETES_VERSION",
  apiEndpoint: "API_ENDPOINT",
  apiCertSans: "API_CERT_SANS",
  apiPort: "API_PORT",
  region: "REGION",
  clusterCaParameter: "CLUSTER_CA_PARAMETER",
  sharedPkiParameters: "SHARED_PKI_PARAMETERS",
  nodeCredentialsPrefix: "NODE_CREDENTIALS_PREFIX",
  nodeRoleName: "NODE_ROLE_NAME",
  secretsKey: "SECRETS_KEY",
  nodeIpFromMetadata: "NODE_IP_FROM_METADATA",
  maxPodsFromEniLimits: "MAX_PODS_FROM_ENI_LIMITS",
  eniAddressesReservedByCilium: "ENI_ADDRESSES_RESERVED_BY_CILIUM",
  hostNetworkPods: "HOST_NETWORK_PODS",
  launchHook: "LAUNCH_HOOK",
  unmanagedSecondaryEnis: "UNMANAGED_SECONDARY_ENIS",
  podCIDR: "POD_CIDR",
  serviceCIDR: "SERVICE_CIDR",
  kubeProxy: "KUBE_PROXY",
  initRecord: "INIT_RECORD",
  restoreRequest: "RESTORE_REQUEST",
  backupBucket: "BACKUP_BUCKET",
  backupIntervalMinutes: "BACKUP_INTERVAL_MINUTES",
  etcdMemberUnhealthyMinutes: "ETCD_UNHEALTHY_MINUTES",
  encryptionKeys: "ENCRYPTION_KEYS_PARAMETER",
  podSecurityEnforce: "POD_SECURITY_ENFORCE",
  podSecurityWarn: "POD_SECURITY_WARN",
  adminRoleArn: "ADMIN_ROLE_ARN",
};

/** The tags, paths, ports, markers and names bash uses, by shell variable, each the program's own constant. */
export const SHELL_FACTS: Readonly<Record<string, string | number>> = {
  CLUSTER_TAG,
  CONTROL_PLANE_TAG: ROLE_TAGS["control-plane"],
  NODE_TAG: ROLE_TAGS.node,
  NODE_CREDENTIAL_SESSION_TAG: INSTANCE_CREDENTIAL_SESSION_TAG,
  JOIN_CREDENTIAL_FILE,
  ETCD_CLIENT_PORT: ETCD_CLIENT,
  ETCD_PEER_PORT: ETCD_PEER,
  KUBERNETES_DIR,
  ENCRYPTION_CONFIG_FILE,
  PATCHES_DIRECTORY,
  NODE_ROLE_FILE,
  KUBEADM_JOINED_MARKER,
  JOINED_MARKER,
  ETCD_UNHEALTHY_DIR,
  UPGRADE_FINISHED_ANNOTATION,
  UPGRADE_MOVED_ANNOTATION,
  TOOLS_DIR,
  API_PIN_MARK,
  SNAPSHOT_PREFIX,
  SNAPSHOT_KEY_PATTERN,
  LATEST_SNAPSHOT_KEY,
  SNAPSHOT_METRIC_NAMESPACE_PREFIX: SNAPSHOT_METRIC.namespacePrefix,
  SNAPSHOT_METRIC_NAME: SNAPSHOT_METRIC.name,
  SNAPSHOT_METRIC_DIMENSION: SNAPSHOT_METRIC.dimension,
  CONTROL_PLANE_STARTED_UNITS: CONTROL_PLANE_STARTED_UNITS.join(" "),
  SHARED_PKI_FILES: SHARED_PKI_FILES.join(" "),
  DRAIN_HANDLER_NAME: NODE_TERMINATION_HANDLER,
  ADMIN_GROUP,
  AUTHENTICATOR_ADDRESS,
  AUTHENTICATOR_PORT,
  AUTHENTICATOR_STATE_DIR,
  AUTHENTICATOR_UID,
  AUTHENTICATOR_POD_FILE,
  AUTHENTICATOR_WEBHOOK_FILE,
};

const WAITS = TIMEOUTS.bootstrapScripts;

/**
 * The waits of bash, by shell variable: defaults, which the environment overrides (tests shorten them);
 * `BOOTSTRAP_TRIES=14 retry …` gives one call its own.
 */
export const SHELL_DEFAULTS: Readonly<Record<string, number>> = {
  BOOTSTRAP_TRIES: WAITS.retryTries,
  BOOTSTRAP_RETRY_DELAY: WAITS.retryFirstDelaySeconds,
  BOOTSTRAP_RETRY_MAX_DELAY: WAITS.retryMaxDelaySeconds,
  API_WAIT_TRIES: WAITS.apiWaitTries,
  API_WAIT_INTERVAL: WAITS.apiWaitIntervalSeconds,
  API_WAIT_ATTEMPT_SECONDS: WAITS.apiWaitAttemptSeconds,
  ETCD_LEAVE_RETRY_SECONDS: WAITS.etcdLeaveRetrySeconds,
  ETCD_COMMAND_SECONDS: WAITS.etcdCommandSeconds,
  TERMINATION_WATCH_SECONDS: WAITS.terminationWatchSeconds,
  LAUNCH_HEARTBEAT_SECONDS: WAITS.launchHeartbeatSeconds,
  LAUNCH_HEARTBEATS_SECONDS: TIMEOUTS.nodes.bootstrapRunMinutes * 60,
  FINAL_SNAPSHOT_TRIES: WAITS.finalSnapshotTries,
  DRAIN_WAIT_SECONDS: TIMEOUTS.drain.hookHeartbeatSeconds,
  // A control-plane node that moved the cluster has joined, or its launch hook has abandoned it, within its
  // heartbeats' window and one join deadline after it: only then may an older node move the cluster back.
  MOVE_BACK_AFTER_SECONDS:
    TIMEOUTS.nodes.bootstrapRunMinutes * 60 + TIMEOUTS.nodes.joinDeadlineSeconds["control-plane"],
  NODE_CREDENTIALS_INTERVAL: WAITS.nodeCredentialsIntervalSeconds,
  NODE_CREDENTIAL_MINUTES: WAITS.nodeCredentialMinutes,
  NODE_CREDENTIAL_WAIT_TRIES: WAITS.nodeCredentialWaitTries,
};

type Variables = Readonly<Record<string, string | number>>;

/** The config's shell variables, with their values as the header writes them (a list space-separated). */
export function configVariables(config: BootstrapConfig): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(SHELL_VARIABLES).map(([field, name]) => {
      const value = config[field as keyof BootstrapConfig];
      return [name, Array.isArray(value) ? value.join(" ") : String(value)];
    }),
  );
}

/** The variables of VARIABLES that TEXT reads (`$NAME`, `${NAME}`, `${NAME:-…}`), in their order. */
function readBy(variables: Variables, text: string): Variables {
  const read = new Set([...text.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1]));
  return Object.fromEntries(Object.entries(variables).filter(([name]) => read.has(name)));
}

const assignments = (variables: Variables) =>
  Object.entries(variables).map(([name, value]) => `${name}=${shellQuote(value)}`);

const facts = (variables: Variables) => assignments(variables).map((a) => `readonly ${a}`);
// Numbers only: no quoting inside the expansion, whose quotes bash would keep.
const defaults = (variables: Variables) => Object.entries(variables).map(([name, n]) => `${name}="\${${name}:-${n}}"`);

/** Every fact and default: what a test evaluates before the modules it sources alone. */
export function factsHeader(): string {
  return [...facts(SHELL_FACTS), ...defaults(SHELL_DEFAULTS), ""].join("\n");
}

/**
 * A script's header. VARIABLES: the config's shell variables; READERS: the texts that read them (the
 * script's body, and the units that run its functions). BOOTSTRAP_CONFIG_HASH covers what the node is told:
 * the config variables the script reads, and TOLD, the files rendered from the config (its kubeadm
 * configuration, its units).
 */
export function scriptHeader(variables: Variables, readers: string[], told: string[]): string {
  const text = readers.join("\n");
  const read = readBy(variables, text);
  // kOps's NodeupConfigHash: base64 of a SHA-256.
  const hash = createHash("sha256")
    .update(JSON.stringify({ variables: read, told }))
    .digest("base64");
  return [
    "#!/bin/bash",
    "# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.",
    "set -euo pipefail",
    "",
    "# What the program and this script both name, and the waits' defaults (components/nodes/shellHeader.ts).",
    ...facts(readBy(SHELL_FACTS, text)),
    ...defaults(readBy(SHELL_DEFAULTS, text)),
    "",
    "# What this node is told: the bootstrap config's fields this script reads.",
    "# shellcheck disable=SC2034",
    "{",
    `  BOOTSTRAP_CONFIG_HASH=${shellQuote(hash)}`,
    ...assignments(read).map((a) => `  ${a}`),
    "}",
    "",
  ].join("\n");
}

/**
 * The user data of an instance group: a short script that installs the bootstrap script and its systemd
 * units and starts them. The bootstrap script is a header of shell variables derived from the bootstrap
 * config, the group's kubeadm configuration as data, the modules its steps use (bootstrap/*.sh) and a `run_steps`
 * that runs the steps in order. Pure: the same config gives the same bytes. Every value is shell quoted and
 * every file sits in a quoted here-document, so no config value can change what a script runs.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { BootstrapConfig, bootstrapConfigHash } from "./bootstrapConfig";
import { BootstrapModule, bootstrapSteps, modulesFor } from "./bootstrapSteps";
import { kubeadmConfigurations } from "./kubeadmConfig";
import { shellQuote } from "./shell";
import { BOOTSTRAP_SCRIPT, BOOTSTRAP_SERVICE, systemdUnits } from "./systemdUnits";

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
  secretsPrefix: "SECRETS_PREFIX",
  joinTokenParameter: "JOIN_TOKEN_PARAMETER",
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
  backupBucket: "BACKUP_BUCKET",
  backupIntervalMinutes: "BACKUP_INTERVAL_MINUTES",
};

const MODULE_DIR = join(__dirname, "bootstrap");
const moduleText = (m: BootstrapModule) =>
  `# bootstrap/${m}.sh\n${withoutComments(readFileSync(join(MODULE_DIR, `${m}.sh`), "utf8"))}`;

/**
 * A module without its comment lines, which explain the source to its readers but cost a node's user data
 * about a third of its budget. Here-document bodies and shellcheck directives are kept verbatim.
 */
export function withoutComments(script: string): string {
  const kept: string[] = [];
  let hereDocument: string | undefined;
  for (const line of script.split("\n")) {
    if (hereDocument !== undefined) {
      if (line === hereDocument) hereDocument = undefined;
      kept.push(line);
    } else if (!/^\s*#/.test(line) || /^\s*# shellcheck /.test(line)) {
      hereDocument = /<<-?'?(\w+)'?$/.exec(line)?.[1];
      kept.push(line);
    }
  }
  return kept.join("\n");
}

/** The here-document delimiter of the kubeadm configuration in user data. */
const CONFIG_DELIMITER = "KUBEADM_CONFIG";

function header(config: BootstrapConfig): string {
  const variables = Object.entries(SHELL_VARIABLES).map(([field, name]) => {
    const value = config[field as keyof BootstrapConfig];
    return `${name}=${shellQuote(Array.isArray(value) ? value.join(" ") : value)}`;
  });
  return [
    "#!/bin/bash",
    "# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.",
    "set -euo pipefail",
    "",
    "# What this node is told; not every role reads every field.",
    "# shellcheck disable=SC2034",
    "{",
    `  BOOTSTRAP_CONFIG_HASH=${shellQuote(bootstrapConfigHash(config))}`,
    ...variables.map((v) => `  ${v}`),
    "}",
    "",
  ].join("\n");
}

/** TEXT in a quoted here-document: it reaches the file as written, whatever it holds. */
function hereDocument(delimiter: string, text: string): string {
  if (text.split("\n").includes(delimiter)) throw new Error(`a here-document holds its delimiter ${delimiter}`);
  return `<<'${delimiter}'\n${text.trimEnd()}\n${delimiter}`;
}

/** A function printing one kubeadm configuration file. */
function configFunction(name: string, yaml: string): string {
  return [`kubeadm_${name}_configuration() {`, `  cat ${hereDocument(CONFIG_DELIMITER, yaml)}`, "}"].join("\n");
}

function data(config: BootstrapConfig): string {
  const configs = Object.entries(kubeadmConfigurations(config)).map(([name, yaml]) => configFunction(name, yaml));
  return ["# kubeadm's configuration for this group; @NAME@ placeholders are filled at boot.", ...configs, ""].join(
    "\n",
  );
}

/**
 * `run_steps`: the role's steps in order, and the joined marker once every one has succeeded. The script
 * runs them when started without arguments (the bootstrap service); with arguments it runs that one
 * function of its modules (the control plane's units: systemdUnits.ts).
 */
function runSteps(config: BootstrapConfig): string {
  const steps = bootstrapSteps(config).map((s) => `  step ${s.name} ${s.run}`);
  return [
    "run_steps() {",
    "  trap on_exit EXIT",
    '  log "instance group $INSTANCE_GROUP ($ROLE) of $CLUSTER_NAME, config hash $BOOTSTRAP_CONFIG_HASH"',
    "  if joined_with_this_config; then",
    '    log "joined with this configuration before: nothing to do"',
    "    return 0",
    "  fi",
    ...steps,
    "  mark_joined",
    '  log "done"',
    "}",
    "",
    'if [ "$#" -gt 0 ]; then "$@"; else run_steps; fi',
    "",
  ].join("\n");
}

/** The bootstrap script of a group: what its service runs. */
export function renderBootstrapScript(config: BootstrapConfig): string {
  const modules = modulesFor(bootstrapSteps(config)).map(moduleText);
  return [header(config), data(config), ...modules, runSteps(config)].join("\n");
}

/** The files user data installs, by path: the bootstrap script and its units. */
export function bootstrapFiles(config: BootstrapConfig): Record<string, { mode: string; text: string }> {
  const units = Object.entries(systemdUnits(config)).map(([name, text]) => [
    `/etc/systemd/system/${name}`,
    { mode: "0644", text },
  ]);
  return Object.fromEntries([[BOOTSTRAP_SCRIPT, { mode: "0700", text: renderBootstrapScript(config) }], ...units]);
}

/** The here-document delimiter of the files in user data; each file's text is checked not to hold it. */
const FILE_DELIMITER = "CILIUM_CLUSTER_FILE";

export function renderUserData(config: BootstrapConfig): string {
  const files = Object.entries(bootstrapFiles(config)).flatMap(([path, { mode, text }]) => [
    `install -D -m ${mode} /dev/null "$root${path}"`,
    `cat >"$root${path}" ${hereDocument(FILE_DELIMITER, text)}`,
  ]);
  return [
    "#!/bin/bash",
    `# cilium-cluster node of ${config.instanceGroup}: installs the bootstrap as a systemd service, which runs`,
    "# again until this node has joined the cluster (journalctl -u cilium-cluster-bootstrap).",
    "set -euo pipefail",
    'root="${BOOTSTRAP_ROOT:-}"',
    ...files,
    "systemctl daemon-reload",
    `systemctl enable ${BOOTSTRAP_SERVICE}`,
    `systemctl start --no-block ${BOOTSTRAP_SERVICE}`,
    "",
  ].join("\n");
}

/** The files a rendered user data installs, by path (the inverse of renderUserData, for tests and --out). */
export function filesOf(userData: string): Record<string, string> {
  const pattern = new RegExp(`^cat >"\\$root(\\S+)" <<'${FILE_DELIMITER}'\\n([\\s\\S]*?)\\n${FILE_DELIMITER}$`, "gm");
  return Object.fromEntries([...userData.matchAll(pattern)].map((m) => [m[1], `${m[2]}\n`]));
}

/** The kubeadm configuration files a rendered user data carries, by name (`init`, `join`). */
export function kubeadmConfigsOf(userData: string): Record<string, string> {
  const pattern = new RegExp(
    `^kubeadm_(\\w+)_configuration\\(\\) \\{\\n  cat <<'${CONFIG_DELIMITER}'\\n([\\s\\S]*?)\\n${CONFIG_DELIMITER}$`,
    "gm",
  );
  return Object.fromEntries([...userData.matchAll(pattern)].map((m) => [m[1], `${m[2]}\n`]));
}

/**
 * What an instance group's nodes run at first boot: user data is a loader (`renderLoader`) that fetches the
 * group's installer (`renderUserData`) from the bootstrap bucket and runs it; the installer writes the
 * bootstrap script and its systemd units and starts them. The bootstrap script is a header of the shell variables it reads (shellHeader.ts:
 * the program's facts and the bootstrap config), the group's kubeadm configuration as data, the modules its
 * steps use (bootstrap/*.sh) and a `run_steps` that runs the steps in order. Pure: the same config gives
 * the same bytes. Every value is shell quoted and every file sits in a quoted here-document, so no config
 * value can change what a script runs.
 */
import { stringify } from "yaml";
import type { PodSecurityLevel } from "../../config/types";
import { authenticatorFiles } from "./authenticator";
import { apiServerConfigFiles } from "./apiServerConfig";
import type { BootstrapConfig } from "./bootstrapConfig";
import { moduleSource } from "./bootstrapModuleFiles";
import { BootstrapModule, bootstrapSteps, modulesFor } from "./bootstrapSteps";
import { kubeadmConfigurations, minorOf } from "./kubeadmConfig";
import { ADMIN_GROUP } from "./nodeFacts";
import { configVariables, scriptHeader } from "./shellHeader";
import { BOOTSTRAP_SCRIPT, BOOTSTRAP_SERVICE, systemdUnits } from "./systemdUnits";

const moduleText = (m: BootstrapModule) => `# bootstrap/${m}.sh\n${withoutComments(moduleSource(m))}`;

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

/**
 * The files user data installs, by path: the bootstrap script (what its service runs) and its units.
 * VARIABLES are the config's shell variables, of which the header writes those the script or its units
 * read; a test adds one that none reads.
 */
export function bootstrapFiles(
  config: BootstrapConfig,
  variables: Record<string, string | number> = configVariables(config),
): Record<string, { mode: string; text: string }> {
  const kubeadm = data(config);
  const body = [kubeadm, ...modulesFor(bootstrapSteps(config)).map(moduleText), runSteps(config)].join("\n");
  const units = systemdUnits(config);
  const apiServer = apiServerFiles(config);
  const authenticator =
    config.role === "control-plane" ? authenticatorFiles(config.clusterName, config.adminRoleArn, ADMIN_GROUP) : {};
  const told = [kubeadm, ...Object.values(units), ...Object.values(apiServer), ...Object.values(authenticator)];
  const header = scriptHeader(variables, [body, ...Object.values(units)], told);
  return Object.fromEntries([
    [BOOTSTRAP_SCRIPT, { mode: "0700", text: [header, body].join("\n") }],
    ...Object.entries(units).map(([name, text]) => [`/etc/systemd/system/${name}`, { mode: "0644", text }]),
    ...Object.entries(apiServer).map(([path, text]) => [path, { mode: "0600", text }]),
    // Read by the authenticator's own user (AUTHENTICATOR_UID); nothing secret in them.
    ...Object.entries(authenticator).map(([path, text]) => [path, { mode: "0644", text }]),
  ]);
}

/** The API server's configuration files of a control-plane group (apiServerConfig.ts), as YAML, by path. */
function apiServerFiles(config: BootstrapConfig): Record<string, string> {
  if (config.role !== "control-plane") return {};
  const podSecurity = {
    enforce: config.podSecurityEnforce as PodSecurityLevel,
    warn: config.podSecurityWarn as PodSecurityLevel,
  };
  return Object.fromEntries(
    Object.entries(apiServerConfigFiles(minorOf(config), podSecurity)).map(([path, doc]) => [
      path,
      stringify(doc, { lineWidth: 0 }),
    ]),
  );
}

/** The bootstrap script of a group: what its service runs. */
export function renderBootstrapScript(config: BootstrapConfig): string {
  return bootstrapFiles(config)[BOOTSTRAP_SCRIPT].text;
}

/** The here-document delimiter of the files in user data; each file's text is checked not to hold it. */
const FILE_DELIMITER = "CILIUM_CLUSTER_FILE";

export function renderUserData(
  config: BootstrapConfig,
  variables: Record<string, string | number> = configVariables(config),
): string {
  const files = Object.entries(bootstrapFiles(config, variables)).flatMap(([path, { mode, text }]) => [
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

/** Seconds between the loader's tries (LOADER_RETRY_SECONDS in its environment: tests). */
const LOADER_RETRY_SECONDS = 10;

/** Where the loader finds its group's installer, and the installer's SHA-256, which it checks before running it. */
export interface LoaderTarget {
  instanceGroup: string;
  region: string;
  bucket: string;
  key: string;
  sha256: string;
}

/**
 * The user data: fetches the installer from s3://BUCKET/KEY with the instance role and runs it only if its
 * SHA-256 is the one the plan computed (kOps's download-or-bust). The AWS CLI is the snap the bootstrap uses
 * too. Each failure is tried again every LOADER_RETRY_SECONDS: cloud-init runs user data once, and the
 * launch hook's join deadline ends an instance that never gets its script.
 */
export function renderLoader(target: LoaderTarget): string {
  const q = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  return [
    "#!/bin/bash",
    `# cilium-cluster node of ${target.instanceGroup}: runs the installer of its bootstrap, fetched from the`,
    "# cluster's bootstrap bucket and checked against its SHA-256.",
    "set -euo pipefail",
    'export PATH="$PATH:/snap/bin" AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=10',
    `retry="\${LOADER_RETRY_SECONDS:-${LOADER_RETRY_SECONDS}}"`,
    // snapd can hang on a change: each try is bounded.
    'until timeout 300 snap install aws-cli --classic; do sleep "$retry"; done',
    "installer=$(mktemp)",
    `until aws s3 cp --region ${q(target.region)} --only-show-errors ${q(`s3://${target.bucket}/${target.key}`)} "$installer" &&`,
    `  echo ${q(target.sha256)}"  $installer" | sha256sum -c --quiet; do sleep "$retry"; done`,
    'exec bash "$installer"',
    "",
  ].join("\n");
}

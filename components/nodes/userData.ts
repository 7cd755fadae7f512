/**
 * The user data of an instance group: a header of shell variables derived from the bootstrap config, the
 * group's kubeadm configuration as data, the modules its steps use (bootstrap/*.sh) and a `main` that runs
 * the steps in order. Pure: the same config gives the same bytes. Every value is shell quoted and the
 * configuration sits in quoted here-documents, so no config value can change what the script runs.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { BootstrapConfig, bootstrapConfigHash } from "./bootstrapConfig";
import { BootstrapModule, bootstrapSteps, modulesFor } from "./bootstrapSteps";
import { kubeadmConfigurations } from "./kubeadmConfig";
import { shellQuote } from "./shell";

/** The shell variable of each bootstrap-config field: the compiler rejects a field left out. */
const SHELL_VARIABLES: { [K in keyof BootstrapConfig]-?: string } = {
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
  nodeIpFromMetadata: "NODE_IP_FROM_METADATA",
  maxPodsFromEniLimits: "MAX_PODS_FROM_ENI_LIMITS",
  unmanagedSecondaryEnis: "UNMANAGED_SECONDARY_ENIS",
  podCIDR: "POD_CIDR",
  serviceCIDR: "SERVICE_CIDR",
  kubeProxy: "KUBE_PROXY",
  initRecord: "INIT_RECORD",
  backupBucket: "BACKUP_BUCKET",
  backupIntervalMinutes: "BACKUP_INTERVAL_MINUTES",
  controlPlaneToolsSha256: "CONTROL_PLANE_TOOLS_SHA256",
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

/** A function printing one kubeadm configuration file, kept verbatim in a quoted here-document. */
function configFunction(name: string, yaml: string): string {
  if (yaml.split("\n").includes(CONFIG_DELIMITER)) throw new Error(`kubeadm ${name} configuration holds its delimiter`);
  return [
    `kubeadm_${name}_configuration() {`,
    `  cat <<'${CONFIG_DELIMITER}'`,
    yaml.trimEnd(),
    CONFIG_DELIMITER,
    "}",
  ].join("\n");
}

function data(config: BootstrapConfig): string {
  const configs = Object.entries(kubeadmConfigurations(config)).map(([name, yaml]) => configFunction(name, yaml));
  return ["# kubeadm's configuration for this group; @NAME@ placeholders are filled at boot.", ...configs, ""].join(
    "\n",
  );
}

function main(config: BootstrapConfig): string {
  const steps = bootstrapSteps(config).map((s) => `  step ${s.name} ${s.run}`);
  return [
    "main() {",
    '  log "instance group $INSTANCE_GROUP ($ROLE) of $CLUSTER_NAME, config hash $BOOTSTRAP_CONFIG_HASH"',
    ...steps,
    '  log "done"',
    "}",
    "",
    'main "$@"',
    "",
  ].join("\n");
}

export function renderUserData(config: BootstrapConfig): string {
  const modules = modulesFor(bootstrapSteps(config)).map(moduleText);
  return [header(config), data(config), ...modules, main(config)].join("\n");
}

/** The kubeadm configuration files a rendered user data carries, by name (`init`, `join`). */
export function kubeadmConfigsOf(userData: string): Record<string, string> {
  const pattern = new RegExp(
    `^kubeadm_(\\w+)_configuration\\(\\) \\{\\n  cat <<'${CONFIG_DELIMITER}'\\n([\\s\\S]*?)\\n${CONFIG_DELIMITER}$`,
    "gm",
  );
  return Object.fromEntries([...userData.matchAll(pattern)].map((m) => [m[1], `${m[2]}\n`]));
}

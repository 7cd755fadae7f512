/**
 * The user data of an instance group: a header of shell variables rendered from the bootstrap config,
 * then the shared body (bootstrap.sh). Pure: the same config gives the same bytes. Every value is shell
 * quoted, so no config value can change what the script runs.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { parseSemver } from "../../spec/ciliumVersions";
import { BootstrapConfig, bootstrapConfigHash } from "./bootstrapConfig";
import { shellQuote } from "./shell";

const BODY = readFileSync(join(__dirname, "bootstrap.sh"), "utf8");

/** AWS's limit on user data, before base64. */
export const USER_DATA_LIMIT = 16 * 1024;

/** kubeadm's config API: v1beta4 from Kubernetes 1.31, v1beta3 before. */
export function kubeadmApiVersion(kubernetesVersion: string): string {
  const minor = parseSemver(kubernetesVersion)?.minor ?? 0;
  return minor >= 31 ? "v1beta4" : "v1beta3";
}

export function renderUserData(config: BootstrapConfig): string {
  const variables: [string, string | number | boolean][] = [
    ["BOOTSTRAP_CONFIG_HASH", bootstrapConfigHash(config)],
    ["CLUSTER_NAME", config.clusterName],
    ["INSTANCE_GROUP", config.instanceGroup],
    ["ROLE", config.role],
    ["INIT_ZONE", config.initZone],
    ["KUBERNETES_VERSION", config.kubernetesVersion],
    ["KUBEADM_API", kubeadmApiVersion(config.kubernetesVersion)],
    ["API_ENDPOINT", config.apiEndpoint],
    ["API_CERT_SANS", config.apiCertSans.join(" ")],
    ["API_PORT", config.apiPort],
    ["REGION", config.region],
    ["SECRETS_PREFIX", config.secretsPrefix],
    ["NODE_IP_FROM_METADATA", config.nodeIpFromMetadata],
    ["MAX_PODS_FROM_ENI_LIMITS", config.maxPodsFromEniLimits],
    ["ENI_RESERVED_IPS", config.eniReservedIps],
    ["UNMANAGED_SECONDARY_ENIS", config.unmanagedSecondaryEnis],
    ["POD_CIDR", config.podCIDR],
    ["SERVICE_CIDR", config.serviceCIDR],
    ["KUBE_PROXY", config.kubeProxy],
  ];
  const header = [
    "#!/bin/bash",
    "# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.",
    "set -euo pipefail",
    "",
    ...variables.map(([name, value]) => `${name}=${shellQuote(value)}`),
    "",
  ].join("\n");
  return `${header}\n${BODY}`;
}

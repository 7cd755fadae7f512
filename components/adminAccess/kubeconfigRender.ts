/**
 * Admin kubeconfigs: no credential in them, the command that makes one whenever the last has expired (`npm
 * run kubeconfig -- --exec`: assume the cluster's admin role, presign a token). Pure.
 */
import { stringify } from "yaml";

/** The command that prints an ExecCredential (client.authentication.k8s.io/v1). */
export interface ExecCommand {
  command: string;
  args: string[];
}

export interface KubeconfigInput {
  clusterName: string;
  server: string;
  caCertPem: string;
  exec: ExecCommand;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
export const EXEC_CREDENTIAL_API = "client.authentication.k8s.io/v1";

export function renderKubeconfig(k: KubeconfigInput): string {
  const user = `admin@${k.clusterName}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: k.clusterName, cluster: { server: k.server, "certificate-authority-data": b64(k.caCertPem) } }],
    users: [{ name: user, user: { exec: { apiVersion: EXEC_CREDENTIAL_API, ...k.exec, interactiveMode: "Never" } } }],
    contexts: [{ name: k.clusterName, context: { cluster: k.clusterName, user } }],
    "current-context": k.clusterName,
  });
}

export interface AdminCredentialTarget {
  clusterName: string;
  region: string;
  /** The cluster's admin role (ClusterAdminRole). */
  roleArn: string;
  /** The AWS profile to assume it with; the SDK's default credentials without one. */
  profile?: string;
}

/** The arguments of `kubeconfig.js --exec` for a cluster. */
export function adminCredentialArgs(t: AdminCredentialTarget): string[] {
  return [
    "--exec",
    "--cluster",
    t.clusterName,
    "--region",
    t.region,
    "--role-arn",
    t.roleArn,
    ...(t.profile ? ["--profile", t.profile] : []),
  ];
}

/**
 * What the Kubernetes provider of `pulumi up` runs for a credential: this project's own CLI
 * (cli/kubeconfig.ts, built to bin/), run from the project directory, where Pulumi starts its providers.
 */
export function adminCredentialCommand(t: AdminCredentialTarget): ExecCommand {
  return { command: "node", args: ["bin/cli/kubeconfig.js", ...adminCredentialArgs(t)] };
}

/**
 * Admin kubeconfigs, rendered from the API endpoint and how the admin authenticates: a short-lived client
 * certificate (`npm run kubeconfig`), or the command that mints one whenever the last has expired (the
 * Kubernetes provider's: no credential in the stack's state). Pure.
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
  user: { clientCertPem: string; clientKeyPem: string } | { exec: ExecCommand };
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
export const EXEC_CREDENTIAL_API = "client.authentication.k8s.io/v1";

export function renderKubeconfig(k: KubeconfigInput): string {
  const user = `admin@${k.clusterName}`;
  const credentials =
    "exec" in k.user
      ? { exec: { apiVersion: EXEC_CREDENTIAL_API, ...k.user.exec, interactiveMode: "Never" } }
      : { "client-certificate-data": b64(k.user.clientCertPem), "client-key-data": b64(k.user.clientKeyPem) };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: k.clusterName, cluster: { server: k.server, "certificate-authority-data": b64(k.caCertPem) } }],
    users: [{ name: user, user: credentials }],
    contexts: [{ name: k.clusterName, context: { cluster: k.clusterName, user } }],
    "current-context": k.clusterName,
  });
}

/**
 * What the Kubernetes provider of `pulumi up` runs for a credential: this project's own CLI
 * (scripts/kubeconfig.ts, built to bin/), run from the project directory, where Pulumi starts its providers.
 */
export function adminCredentialCommand(clusterName: string, region: string, profile?: string): ExecCommand {
  return {
    command: "node",
    args: [
      "bin/scripts/kubeconfig.js",
      "--exec",
      "--cluster",
      clusterName,
      "--region",
      region,
      ...(profile ? ["--profile", profile] : []),
    ],
  };
}

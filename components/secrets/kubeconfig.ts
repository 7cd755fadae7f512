/** The admin kubeconfig, rendered from the API endpoint and the admin's credentials. Pure. */
import { stringify } from "yaml";

export interface KubeconfigInput {
  clusterName: string;
  server: string;
  caCertPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

export function renderKubeconfig(k: KubeconfigInput): string {
  const user = `admin@${k.clusterName}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: k.clusterName, cluster: { server: k.server, "certificate-authority-data": b64(k.caCertPem) } }],
    users: [
      { name: user, user: { "client-certificate-data": b64(k.clientCertPem), "client-key-data": b64(k.clientKeyPem) } },
    ],
    contexts: [{ name: k.clusterName, context: { cluster: k.clusterName, user } }],
    "current-context": k.clusterName,
  });
}

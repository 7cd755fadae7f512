/**
 * The tests' admin client certificate, signed with the test cluster CA's key: how the real control plane's
 * tests reach their API server as an admin (the program's admins use tokens: components/adminAccess). Its
 * group is kubeadm's `kubeadm:cluster-admins`, bound to `cluster-admin` by kubeadm init; its common name
 * says who asked, for the API server's audit log. node-forge builds and signs the
 * certificate (node's crypto parses certificates but does not make them; node-forge has no dependencies,
 * where @peculiar/x509 needs a global Reflect polyfill); node's crypto makes the client's key.
 */
import { generateKeyPairSync, randomBytes } from "crypto";
import forge from "node-forge";
import { stringify } from "yaml";
import { ADMIN_GROUP } from "../../components/nodes/nodeFacts";

/** Valid from a little in the past: the API servers' clocks may be behind this machine's. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface AdminCredentialInput {
  caCertPem: string;
  caKeyPem: string;
  /** Who the certificate is for: its common name. */
  user: string;
  ttlMs: number;
  now?: Date;
}

export interface AdminCredential {
  certPem: string;
  keyPem: string;
  notAfter: Date;
}

export function signAdminCredential(input: AdminCredentialInput): AdminCredential {
  const now = input.now ?? new Date();
  const ca = forge.pki.certificateFromPem(input.caCertPem);
  const client = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(client.publicKey.export({ format: "pem", type: "spki" }) as string);
  // A positive serial of 16 random bytes (RFC 5280: at most 20 octets).
  cert.serialNumber = `01${randomBytes(15).toString("hex")}`;
  cert.validity.notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  // Whole seconds, as the certificate holds it: what an ExecCredential's expirationTimestamp then says.
  cert.validity.notAfter = new Date(Math.floor((now.getTime() + input.ttlMs) / 1000) * 1000);
  cert.setSubject([
    { shortName: "O", value: ADMIN_GROUP },
    { shortName: "CN", value: input.user },
  ]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(input.caKeyPem), forge.md.sha256.create());
  return {
    certPem: forge.pki.certificateToPem(cert),
    keyPem: client.privateKey.export({ format: "pem", type: "pkcs8" }) as string,
    notAfter: cert.validity.notAfter,
  };
}

/** A kubeconfig for SERVER with the credential's certificate and key. */
export function certificateKubeconfig(
  clusterName: string,
  server: string,
  caCertPem: string,
  c: AdminCredential,
): string {
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const user = `admin@${clusterName}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server, "certificate-authority-data": b64(caCertPem) } }],
    users: [{ name: user, user: { "client-certificate-data": b64(c.certPem), "client-key-data": b64(c.keyPem) } }],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user } }],
    "current-context": clusterName,
  });
}

/**
 * A cluster's shared keys as kubeadm init makes them on the node that creates the cluster, which stores them
 * in SSM (bootstrap/control-plane.sh): the cluster, front-proxy and etcd CAs (self-signed, CA:TRUE) with
 * their RSA keys, and the service-account key pair. Generated with openssl, once per test process.
 */
import { execFileSync } from "child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

let cached: Record<string, string> | undefined;

export function clusterPki(): Record<string, string> {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), "pki-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  for (const [name, cn] of [
    ["ca", "kubernetes"],
    ["front-proxy-ca", "front-proxy-ca"],
    ["etcd-ca", "etcd-ca"],
  ]) {
    // openssl req -x509 writes basicConstraints CA:TRUE, as kubeadm's CAs have.
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${cn}`,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.crt`,
    );
  }
  openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "sa.key");
  openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub");
  const names = ["ca", "front-proxy-ca", "etcd-ca"].flatMap((n) => [`${n}.crt`, `${n}.key`]).concat("sa.key", "sa.pub");
  cached = Object.fromEntries(names.map((n) => [n, readFileSync(join(dir, n), "utf8")]));
  return cached;
}

/** Where kubeadm looks for each of them below /etc/kubernetes/pki. */
export const KUBEADM_PKI_PATH: Record<string, string> = {
  "ca.crt": "ca.crt",
  "ca.key": "ca.key",
  "front-proxy-ca.crt": "front-proxy-ca.crt",
  "front-proxy-ca.key": "front-proxy-ca.key",
  "etcd-ca.crt": "etcd/ca.crt",
  "etcd-ca.key": "etcd/ca.key",
  "sa.key": "sa.key",
  "sa.pub": "sa.pub",
};

/**
 * A client certificate for SUBJECT (`/O=…/CN=…`), signed by the CA whose `ca.crt` and `ca.key` are in CA_DIR
 * and valid DAYS, as kubeadm makes a kubeconfig user's: a new RSA-2048 key, client authentication only. PEM.
 */
export function signClientCertificate(caDir: string, subject: string, days = 1): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "client-certificate-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", "key", "-out", "req");
  writeFileSync(join(dir, "ext"), "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n");
  openssl(
    "x509",
    "-req",
    "-in",
    "req",
    "-CA",
    join(caDir, "ca.crt"),
    "-CAkey",
    join(caDir, "ca.key"),
    "-set_serial",
    String(Date.now()),
    "-days",
    String(days),
    "-extfile",
    "ext",
    "-out",
    "crt",
  );
  const pem = { cert: readFileSync(join(dir, "crt"), "utf8"), key: readFileSync(join(dir, "key"), "utf8") };
  rmSync(dir, { recursive: true, force: true });
  return pem;
}

// `npm run kubeconfig` (scripts/kubeconfig.ts) as its callers run it, against the AWS fake's SSM: it reads the CA
// as the caller and signs a short-lived admin credential; a caller KMS does not let decrypt gets none. That
// the API server takes the credential: tests/kubernetes/realControlPlane.test.ts.
import { expect } from "chai";
import { spawn, spawnSync } from "child_process";
import { X509Certificate } from "crypto";
import { mkdtempSync, readFileSync, statSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { parse } from "yaml";
import { ADMIN_GROUP } from "../../components/nodes/nodeFacts";
import { requireDebianTool } from "../debianTools";
import { AwsFake, sdkEnvironment, startAws } from "../standins/aws";
import { clusterPki } from "../standins/pki";

const PROJECT = join(__dirname, "../..");
const PREFIX = "/cilium-cluster/dev.k8s.local/control-plane/";

describe("npm run kubeconfig", function () {
  this.timeout(120_000);
  let aws: AwsFake & { close(): Promise<void> };
  let restore: () => void;

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    const pki = clusterPki();
    // Only the admin's key may decrypt the control plane's parameters, as the cluster key's policy allows.
    aws = await startAws({ decrypts: ["AKIAADMIN"] });
    aws.putParameter(`${PREFIX}ca.crt`, pki["ca.crt"]);
    aws.putParameter(`${PREFIX}ca.key`, pki["ca.key"]);
    restore = sdkEnvironment(aws, { admin: "AKIAADMIN", reader: "AKIAREADER" });
  });
  after(async () => {
    restore?.();
    await aws?.close();
  });

  // Asynchronously: the AWS fake answers from this process.
  const kubeconfig = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["-r", "ts-node/register/transpile-only", "scripts/kubeconfig.ts", "--cluster", "dev.k8s.local", ...args],
        { cwd: PROJECT },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });
  const common = ["--region", "us-east-1", "--user", "admin:alice"];

  it("writes a kubeconfig, readable by its owner only, whose certificate the cluster CA signed for --ttl", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "kubeconfig-")), "kubeconfig");
    const r = await kubeconfig(
      ...common,
      "--profile",
      "admin",
      "--ttl",
      "18h",
      "--server",
      "https://api:443",
      "--out",
      out,
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(statSync(out).mode & 0o777).to.equal(0o600);
    const config = parse(readFileSync(out, "utf8"));
    expect(config.clusters[0].cluster.server).to.equal("https://api:443");
    const pem = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    const cert = new X509Certificate(pem(config.users[0].user["client-certificate-data"]));
    expect(cert.verify(new X509Certificate(clusterPki()["ca.crt"]).publicKey)).to.equal(true);
    expect(cert.subject.split("\n")).to.have.members([`O=${ADMIN_GROUP}`, "CN=admin:alice"]);
    const hours = (Date.parse(cert.validTo) - Date.now()) / 3600_000;
    expect(hours).to.be.within(17.9, 18);
  });

  it("--exec prints an ExecCredential expiring with its certificate, the Kubernetes provider's credential", async () => {
    const r = await kubeconfig(...common, "--profile", "admin", "--exec", "--ttl", "1h");
    expect(r.status, r.stderr).to.equal(0);
    const credential = JSON.parse(r.stdout);
    expect(credential).to.include({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential" });
    const cert = new X509Certificate(credential.status.clientCertificateData);
    expect(Date.parse(credential.status.expirationTimestamp)).to.equal(Date.parse(cert.validTo));
  });

  it("mints nothing for a caller KMS does not let decrypt the CA key, nor for a TTL over a day", async () => {
    const reader = await kubeconfig(...common, "--profile", "reader", "--exec");
    expect(reader.status).to.not.equal(0);
    expect(reader.stdout).to.equal("");
    const long = await kubeconfig(...common, "--profile", "admin", "--exec", "--ttl", "25h");
    expect(long.status).to.not.equal(0);
    expect(long.stdout).to.equal("");
  });

  it("runs compiled, as npm run kubeconfig and the Kubernetes provider run it, and refuses bad usage with exit 2", () => {
    const r = spawnSync(process.execPath, [join(PROJECT, "bin", "scripts", "kubeconfig.js"), "--ttl"], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(2);
    expect(r.stderr).to.contain("usage: npm run kubeconfig");
  });
});

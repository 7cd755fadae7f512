// `npm run kubeconfig` (cli/kubeconfig.ts) as its callers run it, against the AWS fake's STS: the kubeconfig
// holds no credential, only the command that makes one; that command assumes the cluster's admin role as the
// caller, with a session named after the caller, and prints a token presigned for this cluster; a caller the
// role does not trust gets none. That aws-iam-authenticator takes the token and maps it to an admin: the box
// (tests/box/cluster.test.ts).
import { expect } from "chai";
import { spawn, spawnSync } from "child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { parse } from "yaml";
import { AwsFake, sdkEnvironment, startAws } from "../standins/aws";

const PROJECT = join(__dirname, "../..");
const ROLE = "arn:aws:iam::000000000000:role/admins.dev.k8s.local";
const ISSUED = { accessKeyId: "ASIAADMINSESSION", secretAccessKey: "secret", sessionToken: "session-token" };

describe("npm run kubeconfig", function () {
  this.timeout(120_000);
  let aws: AwsFake & { close(): Promise<void> };
  let restore: () => void;

  before(async function () {
    // The admin role trusts the admin's key; the admin is a role session of a person (IAM Identity Center).
    aws = await startAws({
      roles: { [ROLE]: { trusts: "AKIAADMIN", issues: ISSUED } },
      identities: { AKIAADMIN: "arn:aws:sts::000000000000:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com" },
    });
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
        ["-r", "ts-node/register/transpile-only", "cli/kubeconfig.ts", "--cluster", "dev.k8s.local", ...args],
        { cwd: PROJECT },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });
  const common = ["--region", "us-east-1", "--role-arn", ROLE];
  /** A folder with the cluster's CA certificate, and the options that write a kubeconfig there with it. */
  const writing = () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    writeFileSync(join(dir, "ca.crt"), "CA CERTIFICATE\n");
    const out = join(dir, "kubeconfig");
    return { out, args: ["--server", "https://api:443", "--ca-file", join(dir, "ca.crt"), "--out", out] };
  };

  it("writes a kubeconfig, readable by its owner only, with no credential: the command that makes one", async () => {
    const { out, args } = writing();
    const r = await kubeconfig(...common, "--profile", "admin", ...args);
    expect(r.status, r.stderr).to.equal(0);
    expect(statSync(out).mode & 0o777).to.equal(0o600);
    const config = parse(readFileSync(out, "utf8"));
    expect(config.clusters[0].cluster).to.deep.equal({
      server: "https://api:443",
      "certificate-authority-data": Buffer.from("CA CERTIFICATE\n").toString("base64"),
    });
    const user = config.users[0].user;
    expect(Object.keys(user)).to.deep.equal(["exec"]);
    expect(user.exec.command).to.equal(process.execPath);
    expect(user.exec.args.slice(1)).to.deep.equal([
      "--exec",
      "--cluster",
      "dev.k8s.local",
      ...common,
      "--profile",
      "admin",
    ]);
    expect(aws.calls, "nothing assumed or read to write it").to.deep.equal([]);
  });

  it("--exec assumes the admin role as the caller, named after the caller, and prints a token for this cluster", async () => {
    const before = Date.now();
    const r = await kubeconfig(...common, "--profile", "admin", "--exec");
    expect(r.status, r.stderr).to.equal(0);
    const assumed = aws.calls.filter((c) => c.action === "sts:AssumeRole");
    expect(assumed.map((c) => [c.caller, c.params.RoleArn, c.params.RoleSessionName])).to.deep.equal([
      ["AKIAADMIN", ROLE, "alice@example.com"],
    ]);
    const credential = JSON.parse(r.stdout);
    expect(credential).to.include({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential" });
    const { token, expirationTimestamp } = credential.status;
    expect(token).to.match(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token.slice("k8s-aws-v1.".length), "base64url").toString());
    expect(url.origin + url.pathname).to.equal("https://sts.us-east-1.amazonaws.com/");
    const query = Object.fromEntries(url.searchParams);
    expect(query.Action).to.equal("GetCallerIdentity");
    expect(query["X-Amz-Credential"]).to.match(/^ASIAADMINSESSION\/\d{8}\/us-east-1\/sts\/aws4_request$/);
    expect(query["X-Amz-Security-Token"]).to.equal("session-token");
    expect(query["X-Amz-SignedHeaders"].split(";")).to.have.members(["host", "x-k8s-aws-id"]);
    // Only the authenticator's whitelist of query parameters (pkg/token/token.go).
    expect(Object.keys(query).map((k) => k.toLowerCase())).to.have.members([
      "action",
      "version",
      "x-amz-algorithm",
      "x-amz-credential",
      "x-amz-date",
      "x-amz-expires",
      "x-amz-security-token",
      "x-amz-signature",
      "x-amz-signedheaders",
    ]);
    const expires = Date.parse(expirationTimestamp);
    expect(expires - before).to.be.within(13 * 60_000, 15 * 60_000);
  });

  it("prints nothing for a caller the admin role does not trust", async () => {
    const reader = await kubeconfig(...common, "--profile", "reader", "--exec");
    expect(reader.status).to.equal(1);
    expect(reader.stdout).to.equal("");
    expect(reader.stderr).to.contain("not authorized to perform sts:AssumeRole");
  });

  it("runs compiled, as npm run kubeconfig runs it, and its kubeconfig runs the compiled command", () => {
    const { out, args } = writing();
    const compiled = join(PROJECT, "bin", "cli", "kubeconfig.js");
    const r = spawnSync(process.execPath, [compiled, "--cluster", "dev.k8s.local", ...common, ...args], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(parse(readFileSync(out, "utf8")).users[0].user.exec.args[0]).to.equal(compiled);
  });

  it("runs compiled, as npm run kubeconfig and the Kubernetes provider run it, and refuses bad usage with exit 2", () => {
    const r = spawnSync(process.execPath, [join(PROJECT, "bin", "cli", "kubeconfig.js"), "--role-arn"], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(2);
    expect(r.stderr).to.contain("usage: npm run kubeconfig");
  });
});

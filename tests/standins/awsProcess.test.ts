// The AWS fake in a child process (awsProcess.ts), reached as a node reaches AWS: its `aws` CLI, run
// synchronously, and from a network namespace of its own. SSM through it refuses what the SSM API Reference
// says PutParameter and GetParameter refuse, and the test reads the parameters it keeps.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { requireNamespaces } from "../kubernetes/nodeHost";
import { cliDirectory, DEFAULT_SSM_KEY } from "./aws";
import { AwsProcess, startAwsProcess } from "./awsProcess";

/** A SecureString a node writes under the cluster's key (put_secure_parameter): the Secrets encryption keys. */
const NAME = "/cilium-cluster/dev.k8s.local/control-plane/encryption-keys-0123456789ab";
const KEYS = "key-20260101T000000Z c2VjcmV0LWtleS1vbmU=";
const KEY = "alias/cilium-cluster/dev-k8s-local";

describe("the AWS fake in a process of its own", function () {
  this.timeout(60_000);
  let aws: AwsProcess;
  let bin: string;

  before(async () => {
    aws = await startAwsProcess();
    bin = cliDirectory(aws.cliScript("i-0123456789abcdef0"));
  });
  after(() => aws?.close());

  /** `aws ssm OPERATION --region us-east-1 ARGS...`, run synchronously: its status, output, and error code. */
  const ssm = (operation: string, ...args: string[]) => {
    const r = spawnSync("aws", ["ssm", operation, "--region", "us-east-1", ...args], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    return { status: r.status, stdout: r.stdout, code: /An error occurred \((\w+)\)/.exec(r.stderr)?.[1] };
  };
  const put = (name: string, ...args: string[]) => ssm("put-parameter", "--name", name, ...args);
  const value = (name: string, ...args: string[]) =>
    ssm("get-parameter", "--name", name, ...args, "--query", "Parameter.Value", "--output", "text");
  const parameter = async (name: string) => (await aws.parameters())[name];

  it("creates a parameter only with a type, and never over an existing one without --overwrite", async () => {
    const name = "/test/created";
    expect(put(name, "--value", "a")).to.include({ status: 254, code: "ValidationException" });
    expect(put(name, "--type", "Text", "--value", "a")).to.include({ status: 254, code: "ValidationException" });
    expect(await parameter(name)).to.equal(undefined);
    expect(put(name, "--type", "String", "--value", "a").status).to.equal(0);
    // The init record's lock: a second creation fails, and the first value stays.
    expect(put(name, "--type", "String", "--value", "b")).to.include({ status: 254, code: "ParameterAlreadyExists" });
    expect(await parameter(name)).to.deep.equal({ value: "a", type: "String", version: 1 });
    // An update may leave the type out, and keeps it; it may not change it.
    expect(put(name, "--overwrite", "--value", "c").status).to.equal(0);
    expect(await parameter(name)).to.deep.equal({ value: "c", type: "String", version: 2 });
    const retyped = put(name, "--type", "SecureString", "--overwrite", "--value", "d");
    expect(retyped).to.include({ status: 254, code: "HierarchyTypeMismatchException" });
    expect(value(name)).to.include({ status: 0, stdout: "c\n" });
  });

  it("holds a value of 1 to 4096 characters (the Standard tier)", async () => {
    const name = "/test/sized";
    expect(put(name, "--type", "String", "--value", "")).to.include({ status: 254, code: "ValidationException" });
    expect(put(name, "--type", "String", "--value", "x".repeat(4097))).to.include({ code: "ValidationException" });
    expect(put(name, "--type", "String", "--value", "x".repeat(4096)).status).to.equal(0);
  });

  it("encrypts a SecureString under the key put names, else the account's default, and decrypts only when asked", async () => {
    expect(put(NAME, "--type", "SecureString", "--key-id", KEY, "--value", KEYS).status).to.equal(0);
    expect(await parameter(NAME)).to.include({ keyId: KEY, value: KEYS });
    expect(value(NAME, "--with-decryption")).to.include({ status: 0, stdout: `${KEYS}\n` });
    // Without --with-decryption, the ciphertext.
    const encrypted = value(NAME);
    expect(encrypted.status).to.equal(0);
    expect(encrypted.stdout).not.to.contain(KEYS);
    // An overwrite that names no key encrypts under the account's default key.
    expect(put(NAME, "--overwrite", "--value", "key-20260102T000000Z c2VjcmV0LWtleS10d28=").status).to.equal(0);
    expect(await parameter(NAME)).to.include({ keyId: DEFAULT_SSM_KEY, version: 2 });
    expect(value("/test/missing")).to.include({ status: 254, code: "ParameterNotFound" });
  });

  it("takes parameters the test puts, as someone else in the account put them", async () => {
    await aws.putParameter("/test/seeded", "seeded", "SecureString", KEY);
    expect(await parameter("/test/seeded")).to.deep.equal({
      value: "seeded",
      type: "SecureString",
      keyId: KEY,
      version: 1,
    });
    expect(value("/test/seeded", "--with-decryption").stdout).to.equal("seeded\n");
  });

  it("once ended, is an endpoint the CLI cannot connect to (exit 255)", async () => {
    const ended = await startAwsProcess();
    const cli = cliDirectory(ended.cliScript("i-0123456789abcdef0"));
    await ended.close();
    const r = spawnSync("aws", ["ssm", "get-parameter", "--name", "/test/seeded"], {
      env: { ...process.env, PATH: `${cli}:${process.env.PATH}` },
    });
    expect(r.status).to.equal(255);
  });

  it("answers a command in another network namespace, through its socket", function () {
    requireNamespaces(this);
    const r = spawnSync(
      "unshare",
      ["--net", "aws", "ssm", "get-parameter", "--name", "/test/seeded", "--region", "us-east-1"],
      {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      },
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).Parameter).to.include({ Name: "/test/seeded", Type: "SecureString" });
  });
});

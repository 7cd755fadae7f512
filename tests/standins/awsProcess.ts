/**
 * The AWS fake (aws.ts) served from a child process, on a unix socket. For commands a test runs
 * synchronously (spawnSync, as NodeHost runs them), during which the test's own process answers nothing; and
 * for commands in another network namespace, which reaches a socket under the shared /tmp but not this
 * machine's loopback. The `aws` of `cliScript` reaches it with `curl --unix-socket`; the test reads and puts
 * parameters through the same socket. Faults and observers, which take functions, stay with `startAws`.
 */
import { spawn } from "child_process";
import { mkdtempSync } from "fs";
import { createServer, request } from "http";
import { tmpdir } from "os";
import type { Socket } from "net";
import { join } from "path";
import { AwsFake, AwsOptions, body, cliScript, Parameter, serveAws } from "./aws";

/** The fake's URL on its socket: what curl and Node send as the Host; nothing resolves it. */
const URL = "http://aws";
/** The route of the fake's SSM parameters, for the test: GET every one by name, POST one to put. */
const PARAMETERS = "/state/parameters";

export interface AwsProcess {
  /** A bash body for `aws`, run as `instanceId`'s instance role, that calls this fake (aws.ts `cliScript`). */
  cliScript(instanceId: string): string;
  /** Every SSM parameter, by name. */
  parameters(): Promise<Record<string, Parameter>>;
  /** Puts a parameter as someone else in the account did (aws.ts `putParameter`). */
  putParameter(name: string, value: string, type?: Parameter["type"], keyId?: string): Promise<void>;
  /** Ends the child process. */
  close(): Promise<void>;
}

/** One request to the fake's parameters route; its answer's body, or an error for any other status than 2xx. */
function parametersRoute(socket: string, method: "GET" | "POST", payload?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path: PARAMETERS, method }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () =>
        (res.statusCode ?? 0) < 300 ? resolve(text) : reject(new Error(`${method} ${PARAMETERS}: ${text}`)),
      );
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** Starts a fake account in a child process of its own; it ends with `close`, or when this process ends. */
export async function startAwsProcess(options: AwsOptions = {}): Promise<AwsProcess> {
  const socket = join(mkdtempSync(join(tmpdir(), "aws-")), "aws.sock");
  const child = spawn(
    process.execPath,
    ["-r", require.resolve("ts-node/register/transpile-only"), __filename, socket, JSON.stringify(options)],
    {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, TS_NODE_PROJECT: join(__dirname, "../../tsconfig.json") },
    },
  );
  await new Promise<void>((ready, fail) => {
    child.stdout.once("data", () => ready());
    child.once("exit", (status) => fail(new Error(`the AWS fake's process ended (${status}) before it listened`)));
  });
  // Like startAws's server, it never keeps this process alive by itself.
  child.unref();
  // Its pipes are sockets (Node's child_process), typed as plain streams.
  for (const pipe of [child.stdin, child.stdout]) (pipe as unknown as Socket).unref();
  return {
    cliScript: (instanceId) => cliScript(URL, instanceId, socket),
    parameters: async () => JSON.parse(await parametersRoute(socket, "GET")),
    putParameter: async (name, value, type, keyId) => {
      await parametersRoute(socket, "POST", JSON.stringify({ name, value, type, keyId }));
    },
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill();
      }),
  };
}

/** The child: the fake on `socket`, and its parameters route; it ends when its parent's pipe closes. */
function serve(socket: string, options: AwsOptions): void {
  const fake = new AwsFake(URL, options);
  const aws = serveAws(fake, options);
  const server = createServer(async (req, res) => {
    if (req.url !== PARAMETERS) return aws(req, res);
    if (req.method === "GET") return res.end(JSON.stringify(Object.fromEntries(fake.parameters)));
    const { name, value, type, keyId } = JSON.parse(await body(req));
    fake.putParameter(name, value, type, keyId);
    res.writeHead(204).end();
  });
  server.listen(socket, () => process.stdout.write("listening\n"));
  process.stdin.on("end", () => process.exit(0)).resume();
}

if (require.main === module) serve(process.argv[2], JSON.parse(process.argv[3]));

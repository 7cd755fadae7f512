/**
 * The box's AWS (tests/box/aws/emulator.py: moto with the lifecycle layer, instance metadata, the API's load
 * balancer, pkgs.k8s.io) as a process in the box's network namespace, and the AWS CLI against it for the
 * harness, through the namespace's loopback.
 */
import { spawn, ChildProcess } from "child_process";
import { createWriteStream } from "fs";
import { join } from "path";
import { BoxNetwork } from "./network";
import { run } from "./run";
import { INSTANCE_CREDENTIAL_SESSION_TAG } from "../../components/nodes/secretPaths";

const HERE = __dirname;
const PORT = 4566;
/** The emulator for the harness, inside the box's network namespace (plain HTTP on its loopback). */
export const EMULATOR_ENDPOINT = `http://127.0.0.1:${PORT}`;

export class Emulator {
  private constructor(
    private readonly child: ChildProcess,
    private readonly namespace: string,
    private readonly exited: Promise<void>,
  ) {}

  static async start(network: BoxNetwork, plan: string, image: string, logFile: string): Promise<Emulator> {
    const child = spawn(
      "ip",
      [
        "netns",
        "exec",
        network.namespace,
        "python3",
        join(HERE, "aws", "emulator.py"),
        "--plan",
        plan,
        "--image",
        image,
        ...Object.values(network.routers).flatMap((router) => ["--router", router]),
        "--nlb",
        network.loadBalancer,
        "--port",
        String(PORT),
        "--session-tag",
        INSTANCE_CREDENTIAL_SESSION_TAG,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const log = createWriteStream(logFile);
    child.stderr.pipe(log);
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"ready": true')) resolve();
      });
      void exited.then(() => reject(new Error(`the AWS emulator exited before it was ready (${logFile})`)));
      setTimeout(
        () => reject(new Error(`the AWS emulator was not ready within 2 minutes (${logFile})`)),
        120_000,
      ).unref();
    }).catch((error: unknown) => {
      child.kill("SIGKILL");
      throw error;
    });
    return new Emulator(child, network.namespace, exited);
  }

  /** `aws ARGS --output json` against the emulator, parsed; `undefined` for an empty answer. */
  async aws<T = unknown>(args: string[]): Promise<T> {
    const { stdout } = await run("ip", [
      "netns",
      "exec",
      this.namespace,
      "env",
      "AWS_ACCESS_KEY_ID=box",
      "AWS_SECRET_ACCESS_KEY=box",
      "aws",
      "--endpoint-url",
      `http://127.0.0.1:${PORT}`,
      "--region",
      "us-east-1",
      "--output",
      "json",
      ...args,
    ]);
    return (stdout.trim() ? JSON.parse(stdout) : undefined) as T;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill("SIGTERM");
    const timeout = new Promise((r) => setTimeout(r, 10_000, "timeout"));
    if ((await Promise.race([this.exited, timeout])) === "timeout") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}

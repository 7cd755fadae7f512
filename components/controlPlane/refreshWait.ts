/**
 * ControlPlaneRefreshWait: one control-plane member at a time. After a control-plane group is created or
 * changed, `pulumi up` waits until the group's newest instance refresh has succeeded (DescribeInstanceRefreshes)
 * and the API answers `/readyz` (skipped when pulumi up does not reach the API, with `addons.applyFrom:
 * controlPlane`) before it goes on to the next group, which depends on this wait.
 * What `Successful` means: a refresh counts an instance only once it is InService, which it is only once its
 * launch hook is completed, and a control-plane node completes it only once etcd is healthy with its member
 * in it: started, voting, healthy, with a quorum of members healthy (bootstrap/etcd-health.sh). This machine
 * cannot reach etcd; the new node judges it, and a refresh that succeeded had etcd healthy with the new member.
 * A group with no refresh yet (a new group) has nothing to wait for here.
 * A failed refresh, ten minutes in which nothing answers at the API, or a timeout stops `pulumi up` with an
 * error that names the group.
 * Deletions run in the reverse order, so scaling the control plane down removes one member at a time.
 */
import * as pulumi from "@pulumi/pulumi";
import { existsSync, readFileSync } from "fs";
import { join } from "path";

/** Instance refresh statuses (Auto Scaling API `InstanceRefreshStatus`). */
const IN_PROGRESS = ["Pending", "InProgress", "Cancelling", "RollbackInProgress", "Baking"];
const FAILED = ["Failed", "Cancelled", "RollbackSuccessful", "RollbackFailed"];

export interface RefreshSummary {
  Status?: string;
  StatusReason?: string;
  StartTime?: Date | string;
}

export type Outcome = "done" | "wait" | { failed: string };

/** What the newest of a group's instance refreshes means for the wait. No refresh at all: nothing to wait for. */
export function refreshOutcome(refreshes: RefreshSummary[]): Outcome {
  const newest = [...refreshes].sort((a, b) => String(b.StartTime ?? "").localeCompare(String(a.StartTime ?? "")))[0];
  if (!newest || newest.Status === "Successful") return "done";
  if (FAILED.includes(newest.Status ?? ""))
    return { failed: `${newest.Status}: ${newest.StatusReason ?? "no reason given"}` };
  if (IN_PROGRESS.includes(newest.Status ?? "")) return "wait";
  return { failed: `unknown instance refresh status ${newest.Status}` };
}

/** Polls `check` until it is done; a failure or the deadline throws, naming `what`. */
export async function waitUntil(
  what: string,
  check: () => Promise<Outcome>,
  timeoutMs: number,
  intervalMs: number,
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const outcome = await check();
    if (outcome === "done") return;
    if (outcome !== "wait") throw new Error(`${what}: ${outcome.failed}`);
    if (now() >= deadline) throw new Error(`${what}: not done after ${Math.round(timeoutMs / 1000)}s`);
    await sleep(intervalMs);
  }
}

interface Inputs {
  region: string;
  groupName: string;
  /** The group's launch template version: a new one means a refresh to wait for. */
  templateVersion: number;
  /** The API's /readyz as the deployer reaches it; empty when pulumi up does not reach the API. */
  readyUrl: string;
  caCertPem: string;
  timeoutSeconds: number;
  /** Seconds without any answer at readyUrl after which the wait fails. */
  silentLimitSeconds: number;
}

/**
 * One look at the API's `/readyz`: done on 200, wait otherwise. As ApiReady, `silentLimitMs` in which nothing
 * at all answers (no refusal, no TLS, no HTTP) is an API this machine does not reach, not a slow one: failed
 * (docs/operations.md, "When pulumi up cannot reach the API"). Runs in the dynamic-provider host.
 */
export function apiReadiness(
  url: string,
  caCertPem: string,
  silentLimitMs: number,
  attemptMs: number,
): () => Promise<Outcome> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const https = require("https") as typeof import("https");
  let lastAnswer = Date.now();
  return () =>
    new Promise<Outcome>((resolve) => {
      const request = https.get(url, { ca: caCertPem, timeout: attemptMs }, (res) => {
        lastAnswer = Date.now();
        res.resume();
        resolve(res.statusCode === 200 ? "done" : "wait");
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "ECONNREFUSED" || error.code === "ECONNRESET" || /certificate|TLS|SSL/i.test(error.message))
          lastAnswer = Date.now();
        if (Date.now() - lastAnswer < silentLimitMs) resolve("wait");
        else
          resolve({
            failed:
              `nothing answered for ${Math.round(silentLimitMs / 1000)}s: this machine does not reach the API; ` +
              "run pulumi up from one that does, or set addons.applyFrom controlPlane (docs/operations.md)",
          });
      });
      // A timeout is silence, not an answer (destroy() alone would report it as a reset connection).
      request.on("timeout", () => request.destroy(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" })));
    });
}

// Runs in the engine's dynamic-provider host: what it uses it requires itself.
async function waitForGroup(inputs: Inputs): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require("@aws-sdk/client-auto-scaling") as typeof import("@aws-sdk/client-auto-scaling");
  const client = new sdk.AutoScalingClient({ region: inputs.region });
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  const remaining = () => Math.max(deadline - Date.now(), 0);
  await waitUntil(
    `instance refresh of ${inputs.groupName}`,
    async () => {
      const out = await client.send(
        new sdk.DescribeInstanceRefreshesCommand({ AutoScalingGroupName: inputs.groupName, MaxRecords: 5 }),
      );
      return refreshOutcome(out.InstanceRefreshes ?? []);
    },
    remaining(),
    15000,
  );
  const ready = apiReadiness(inputs.readyUrl, inputs.caCertPem, inputs.silentLimitSeconds * 1000, 5000);
  if (inputs.readyUrl) await waitUntil(`API (${inputs.readyUrl}) after ${inputs.groupName}`, ready, remaining(), 10000);
}

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Inputs) {
    await waitForGroup(inputs);
    return { id: inputs.groupName, outs: inputs };
  },
  async diff(_id: string, olds: Inputs, news: Inputs) {
    const changed = (Object.keys(news) as (keyof Inputs)[]).some((k) => olds[k] !== news[k]);
    return { changes: changed };
  },
  async update(_id: string, _olds: Inputs, news: Inputs) {
    await waitForGroup(news);
    return { outs: news };
  },
};

export interface ControlPlaneRefreshWaitArgs {
  region: pulumi.Input<string>;
  groupName: pulumi.Input<string>;
  templateVersion: pulumi.Input<number>;
  readyUrl: pulumi.Input<string>;
  caCertPem: pulumi.Input<string>;
  timeoutSeconds: pulumi.Input<number>;
  silentLimitSeconds: pulumi.Input<number>;
}

/** Where the build writes the serialized provider, beside the compiled module (scripts/compile.ts). */
export const SERIALIZED_PROVIDER_FILE = join(__dirname, "refreshWait.provider.js");

/** The provider as the engine's dynamic-provider host loads it (what `pulumi.dynamic.Resource` sends). */
export async function serializeProvider(): Promise<string> {
  // A local binding, as `pulumi.dynamic.Resource` captures its provider argument, not the module's exports.
  const local = provider;
  return (await pulumi.runtime.serializeFunction(() => local, { allowSecrets: true })).text;
}

let serialized: string | Promise<string> | undefined;

/**
 * A `pulumi.dynamic.Resource`, declared as that class declares it, with the provider serialized by the build
 * (as ApiReady's, components/k8s/apiReady.ts); run from the sources (tests), serialized once per process.
 */
export class ControlPlaneRefreshWait extends pulumi.CustomResource {
  constructor(name: string, args: ControlPlaneRefreshWaitArgs, opts?: pulumi.CustomResourceOptions) {
    serialized ??= existsSync(SERIALIZED_PROVIDER_FILE)
      ? readFileSync(SERIALIZED_PROVIDER_FILE, "utf8")
      : serializeProvider();
    super("pulumi-nodejs:dynamic:Resource", name, { ...args, __provider: serialized }, opts);
  }
}

/**
 * ApiReady: waits, during `pulumi up`, until the new cluster's API server answers `/readyz` through the
 * load balancer, so the Cilium objects are applied to a cluster that exists. Nodes boot for minutes after
 * their Auto Scaling group is created; without this the Kubernetes provider would fail at once.
 */
import * as pulumi from "@pulumi/pulumi";
import { existsSync, readFileSync } from "fs";
import { join } from "path";

export interface ApiReadyArgs {
  url: pulumi.Input<string>;
  caCertPem: pulumi.Input<string>;
  /** Give up after this many seconds. */
  timeoutSeconds: pulumi.Input<number>;
}

interface Inputs {
  url: string;
  caCertPem: string;
  timeoutSeconds: number;
}

// Runs in the engine's dynamic-provider host, so it may only use what it requires itself.
const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Inputs) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const https = require("https") as typeof import("https");
    const ready = () =>
      new Promise<boolean>((resolve) => {
        const request = https.get(inputs.url, { ca: inputs.caCertPem, timeout: 5000 }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        request.on("error", () => resolve(false));
        request.on("timeout", () => request.destroy());
      });
    const deadline = Date.now() + inputs.timeoutSeconds * 1000;
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`${inputs.url} did not become ready in ${inputs.timeoutSeconds}s`);
      await new Promise((r) => setTimeout(r, 10000));
    }
    return { id: inputs.url, outs: inputs };
  },
};

/** Where the build writes the serialized provider, beside the compiled module (scripts/compile.ts). */
export const SERIALIZED_PROVIDER_FILE = join(__dirname, "apiReady.provider.js");

/** The provider as the engine's dynamic-provider host loads it (what `pulumi.dynamic.Resource` sends). */
export async function serializeProvider(): Promise<string> {
  return (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
}

let serialized: string | Promise<string> | undefined;

/**
 * A `pulumi.dynamic.Resource`, declared as that class declares it, with the provider serialized by the
 * build: serializing it here costs a plan or preview half a second. Run from the sources (tests), it is
 * serialized once per process, as `pulumi.dynamic.Resource` does.
 */
export class ApiReady extends pulumi.CustomResource {
  constructor(name: string, args: ApiReadyArgs, opts?: pulumi.CustomResourceOptions) {
    serialized ??= existsSync(SERIALIZED_PROVIDER_FILE)
      ? readFileSync(SERIALIZED_PROVIDER_FILE, "utf8")
      : serializeProvider();
    super("pulumi-nodejs:dynamic:Resource", name, { ...args, __provider: serialized }, opts);
  }
}

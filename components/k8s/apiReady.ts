/**
 * ApiReady: waits, during `pulumi up`, until the new cluster's API server answers `/readyz` through the
 * load balancer, so the add-ons are applied to a cluster that exists. Nodes boot for minutes after their
 * Auto Scaling group is created; without this the Kubernetes provider would fail at once.
 *
 * It fails fast, saying what to do, when this machine cannot reach the API: at once when its public
 * address is outside `api.access`, and after `silentLimitSeconds` when nothing at all answered at the
 * load balancer's addresses (an internal load balancer seen from outside the VPC), instead of waiting
 * out the whole timeout.
 */
import * as pulumi from "@pulumi/pulumi";
import { existsSync, readFileSync } from "fs";
import { join } from "path";

export interface ApiReadyArgs {
  url: pulumi.Input<string>;
  caCertPem: pulumi.Input<string>;
  /** Give up after this many seconds. */
  timeoutSeconds: pulumi.Input<number>;
  /** Give up after this many seconds when nothing answered at all: the API is out of this machine's reach. */
  silentLimitSeconds: pulumi.Input<number>;
  /** CIDRs admitted to the API when not everyone is (`api.access`): this machine's address is checked first. */
  access: pulumi.Input<string[]>;
  /** What the user can do when this machine cannot reach the API. */
  remedies: pulumi.Input<string>;
  /** Answers with the caller's public IPv4 address as text. */
  addressLookupUrl?: pulumi.Input<string>;
  /** Seconds between attempts, and for each attempt. */
  pollSeconds?: pulumi.Input<number>;
  attemptSeconds?: pulumi.Input<number>;
}

export interface ApiReadyInputs {
  url: string;
  caCertPem: string;
  timeoutSeconds: number;
  silentLimitSeconds: number;
  access: string[];
  remedies: string;
  addressLookupUrl: string;
  pollSeconds: number;
  attemptSeconds: number;
}

interface Answer {
  status?: number;
  body: string;
  code?: string;
}

// The two helpers below run in the engine's dynamic-provider host, serialized by value with the provider:
// function declarations that use nothing but their arguments, so the serialized text is complete and the
// same on every run.

/** True when `address` (dotted IPv4) lies in one of `cidrs`; false for anything unparseable. */
export function admitted(address: string, cidrs: readonly string[]): boolean {
  const toNumber = (dotted: string): number | undefined => {
    const parts = dotted.split(".");
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
    return parts.reduce((n, p) => n * 256 + Number(p), 0);
  };
  const host = toNumber(address);
  if (host === undefined) return false;
  return cidrs.some((cidr) => {
    const [base, prefixText] = cidr.split("/");
    const network = toNumber(base);
    const prefix = Number(prefixText);
    if (network === undefined || !(prefix >= 0 && prefix <= 32)) return false;
    const size = 2 ** (32 - prefix);
    return Math.floor(host / size) === Math.floor(network / size);
  });
}

/**
 * `answered`: something at the address took part (refused, reset, TLS or HTTP), so the network path
 * exists and the API is still starting. `silent`: nothing answered (timeout, no route, no name).
 */
export function attemptOutcome(errorCode: string | undefined): "answered" | "silent" {
  const silent = ["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED", "TIMEOUT"];
  return errorCode !== undefined && silent.includes(errorCode) ? "silent" : "answered";
}

export const apiReadyProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: ApiReadyInputs) {
    const get = (url: string, ca?: string) =>
      new Promise<Answer>((resolve) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const client = require(url.startsWith("http:") ? "http" : "https") as typeof import("https");
        const request = client.get(url, { ca, timeout: inputs.attemptSeconds * 1000 }, (res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode, body }));
          res.on("error", () => resolve({ status: res.statusCode, body }));
        });
        request.on("error", (err: NodeJS.ErrnoException) => resolve({ body: "", code: err.code ?? err.message }));
        request.on("timeout", () => request.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
      });
    const host = new URL(inputs.url).host;

    if (inputs.access.length > 0) {
      const lookup = await get(inputs.addressLookupUrl);
      const address = lookup.status === 200 ? lookup.body.trim() : undefined;
      if (address && !admitted(address, inputs.access)) {
        throw new Error(
          `this machine's address ${address} is not in api.access (${inputs.access.join(", ")}), so pulumi up ` +
            `cannot reach the API at ${host} to apply the add-ons: ${inputs.remedies}`,
        );
      }
    }

    const start = Date.now();
    let answered = false;
    for (;;) {
      const attempt = await get(inputs.url, inputs.caCertPem);
      if (attempt.status === 200) return { id: inputs.url, outs: inputs };
      answered ||= attemptOutcome(attempt.code) === "answered";
      const last = attempt.code ?? `HTTP ${attempt.status}`;
      const elapsed = (Date.now() - start) / 1000;
      if (!answered && elapsed >= inputs.silentLimitSeconds) {
        throw new Error(
          `nothing answered at ${host} for ${inputs.silentLimitSeconds}s (last: ${last}): this machine cannot ` +
            `reach the API to apply the add-ons: ${inputs.remedies}`,
        );
      }
      if (elapsed >= inputs.timeoutSeconds) {
        throw new Error(
          `${inputs.url} answered but did not become ready in ${inputs.timeoutSeconds}s (last: ${last}): the ` +
            "control plane did not come up; read a control-plane instance's console output (docs/operations.md)",
        );
      }
      await new Promise((r) => setTimeout(r, inputs.pollSeconds * 1000));
    }
  },
  // A new endpoint means a new load balancer: wait again. Anything else changes nothing to wait for.
  async diff(_id: string, olds: ApiReadyInputs, news: ApiReadyInputs) {
    const moved = olds.url !== news.url;
    return { changes: moved, replaces: moved ? ["url"] : [] };
  },
};

/** Where the build writes the serialized provider, beside the compiled module (scripts/compile.ts). */
export const SERIALIZED_PROVIDER_FILE = join(__dirname, "apiReady.provider.js");

/** The provider as the engine's dynamic-provider host loads it (what `pulumi.dynamic.Resource` sends). */
export async function serializeProvider(): Promise<string> {
  // A local binding, as `pulumi.dynamic.Resource` captures its provider argument, not the module's exports.
  const provider = apiReadyProvider;
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
    super(
      "pulumi-nodejs:dynamic:Resource",
      name,
      {
        addressLookupUrl: "https://checkip.amazonaws.com",
        pollSeconds: 10,
        attemptSeconds: 5,
        ...args,
        __provider: serialized,
      },
      opts,
    );
  }
}

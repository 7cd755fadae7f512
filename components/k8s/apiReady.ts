/**
 * The wait, during `pulumi up`, until the cluster's API answers `/readyz` through the load balancer, from
 * the machine running `pulumi up` (components/controlPlane/refreshWait.ts runs it after each control-plane
 * group, when that machine applies the add-ons).
 *
 * It fails fast, saying what to do, when this machine cannot reach the API: at once when its public
 * address is outside `api.access`, and after `apiSilentLimitSeconds` when nothing at all answered at the
 * load balancer's addresses (an internal load balancer seen from outside the VPC), instead of waiting out
 * the whole timeout.
 */
import { waitUntil } from "../poll";

/** The API as the machine running `pulumi up` reaches it. */
export interface ApiTarget {
  /** `https://<api>:<port>/readyz`. */
  url: string;
  caCertPem: string;
  /** CIDRs admitted to the API when not everyone is (`api.access`): this machine's address is checked first. */
  access: readonly string[];
  /** What the user can do when this machine cannot reach the API. */
  remedies: string;
}

/** Seconds (components/timeouts.ts, `deploy`). */
export interface ApiTiming {
  apiSilentLimitSeconds: number;
  apiPollSeconds: number;
  apiAttemptSeconds: number;
}

/** Answers with the caller's public IPv4 address as text. */
export const ADDRESS_LOOKUP_URL = "https://checkip.amazonaws.com";

interface Answer {
  status?: number;
  body: string;
  code?: string;
}

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

async function get(url: string, attemptSeconds: number, ca?: string): Promise<Answer> {
  // http and https (with net and tls) load on the first wait: a plan or a preview never waits.
  const client = url.startsWith("http:") ? await import("http") : await import("https");
  return new Promise<Answer>((resolve) => {
    const options = { ca, timeout: attemptSeconds * 1000 };
    const request = client.get(url, options, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body }));
      res.on("error", () => resolve({ status: res.statusCode, body }));
    });
    request.on("error", (err: NodeJS.ErrnoException) => resolve({ body: "", code: err.code ?? err.message }));
    // A timeout is silence, not an answer (destroy() alone would report it as a reset connection).
    request.on("timeout", () => request.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
  });
}

/**
 * Waits until `target` answers 200, at most `timeoutSeconds`; `what` (the wait's purpose) starts every
 * error. Throws when this machine is outside `api.access`, when nothing answered for the silent limit, and
 * at the deadline. `report` hears once that it has to wait.
 */
export async function waitForApi(
  what: string,
  target: ApiTarget,
  timeoutSeconds: number,
  timing: ApiTiming,
  report: (message: string) => void = () => undefined,
  addressLookupUrl: string = ADDRESS_LOOKUP_URL,
): Promise<void> {
  const host = new URL(target.url).host;
  if (target.access.length > 0) {
    const lookup = await get(addressLookupUrl, timing.apiAttemptSeconds);
    const address = lookup.status === 200 ? lookup.body.trim() : undefined;
    if (address && !admitted(address, target.access)) {
      throw new Error(
        `${what}: this machine's address ${address} is not in api.access (${target.access.join(", ")}), so ` +
          `pulumi up cannot reach the API at ${host}: ${target.remedies}`,
      );
    }
  }

  const start = Date.now();
  let answered = false;
  let reported = false;
  let last = "";
  await waitUntil(
    what,
    async () => {
      const attempt = await get(target.url, timing.apiAttemptSeconds, target.caCertPem);
      if (attempt.status === 200) return "done";
      answered ||= attemptOutcome(attempt.code) === "answered";
      last = attempt.code ?? `HTTP ${attempt.status}`;
      const elapsed = (Date.now() - start) / 1000;
      if (!reported) {
        reported = true;
        report(`waiting for ${target.url} to be ready (last: ${last}; at most ${timeoutSeconds}s)`);
      }
      // Silent until the deadline, however short what is left of it: unreachable, as at the silent limit.
      if (!answered && (elapsed >= timing.apiSilentLimitSeconds || elapsed >= timeoutSeconds)) {
        return {
          failed:
            `nothing answered at ${host} for ${Math.min(timing.apiSilentLimitSeconds, timeoutSeconds)}s ` +
            `(last: ${last}): this machine cannot reach the API: ${target.remedies}`,
        };
      }
      return "wait";
    },
    {
      timeoutMs: timeoutSeconds * 1000,
      intervalMs: timing.apiPollSeconds * 1000,
      timedOut: () =>
        `${target.url} answered but did not become ready in ${timeoutSeconds}s (last: ${last}): the control ` +
        "plane did not come up; read a control-plane instance's console output (docs/operations.md)",
    },
  );
}

/**
 * Runs the real program in-process under the Pulumi SDK's mock runtime, as a preview (what `pulumi preview`
 * runs: `pulumi.runtime.isDryRun()` is true, so nothing the program does only during `pulumi up` runs), and
 * records every resource it registers (with its parent and inputs) and the stack outputs. Nothing reaches a
 * cloud.
 */
import * as pulumi from "@pulumi/pulumi";
import * as rpc from "@pulumi/pulumi/runtime/rpc";
// The program's entry point, the function the Pulumi CLI runs.
import program from "../../index";
import { ConfigValidationError } from "../../config/validation/report";
import type { FieldError } from "../../config/validation/fieldErrors";
import { PROJECT } from "../../config/read";
import { PLAN_ORGANIZATION, planMocks } from "./mocks";
import { StackConfig, toRuntimeConfig } from "./stackConfig";
import { byCodePoint } from "../../components/codePointOrder";

export interface PlannedResource {
  urn: string;
  type: string;
  name: string;
  /** URN of the parent, null for the stack itself. */
  parent: string | null;
  /** False for components (and the stack). */
  custom: boolean;
  /** Inputs with every secret written as `"[secret]"`. */
  inputs: unknown;
  /** The explicit provider (`urn::id`), if any. Kept in memory for tests, not written to resources.json. */
  provider?: string;
  /** URNs the resource depends on. Kept in memory for tests, not written to resources.json. */
  dependencies?: string[];
  /** Resource options the engine acts on in `pulumi up` (in memory only, like `provider`). */
  replaceOnChanges?: string[];
  /** The program's `deleteBeforeReplace`; undefined where it leaves the choice to the provider (deleteFirst.ts). */
  deleteBeforeReplace?: boolean;
  retainOnDelete?: boolean;
  /** Input paths the engine keeps at their old value on update (`ignoreChanges`). */
  ignoreChanges?: string[];
  /** URN of the resource whose deletion deletes this one too (`deletedWith`). */
  deletedWith?: string;
}

export interface Plan {
  resources: PlannedResource[];
  outputs: Record<string, unknown>;
  /** Config errors, when the program refused the config. */
  errors?: readonly FieldError[];
  /** Warnings the program logged (`pulumi.log.warn`): what `pulumi preview` shows; the CLI prints them. */
  warnings: string[];
}

export const SECRET = "[secret]";
/** What a value known only once `pulumi up` has run is written as (the cluster CA's certificate). */
export const UNKNOWN = "[unknown]";

// A program that refuses its config rejects the Stack's init; the SDK leaves copies of that rejection
// unhandled. They are reported through `Plan.errors`, so they must not end the process.
process.on("unhandledRejection", (reason) => {
  if (reason instanceof ConfigValidationError) return;
  throw reason;
});

/** Deserialized property values with secrets and unknowns replaced by a marker, resources by their URN. */
function redact(value: unknown): unknown {
  if (pulumi.isUnknown(value)) return UNKNOWN;
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (record[rpc.specialSigKey] === rpc.specialSecretSig) return SECRET;
    if (pulumi.Resource.isInstance(value)) return "[resource]";
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, redact(v)]));
  }
  return value;
}

type Struct = Parameters<typeof rpc.deserializeProperties>[0];

type Callback = (err: Error | null, resp?: { getUrn(): string }) => void;

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getCustom(): boolean;
  getObject(): Struct;
  getProvider(): string;
  getDependenciesList(): string[];
  getReplaceonchangesList(): string[];
  getIgnorechangesList(): string[];
  getDeletebeforereplace(): boolean;
  getDeletebeforereplacedefined(): boolean;
  getRetainondelete(): boolean | undefined;
  getIgnorechangesList(): string[];
  getDeletedwith(): string;
}

/**
 * Wraps the mock monitor so each registration is recorded with its parent and inputs. The inputs are those
 * the mock monitor deserialized for the mocks (once, not again here): it calls `newResource` as it starts a
 * registration, before anything asynchronous, so they are at hand when its call returns.
 */
function recordRegistrations(
  mocks: pulumi.runtime.Mocks,
  resources: PlannedResource[],
  outputs: { value: Record<string, unknown> },
  stackName: string,
): void {
  let received: Record<string, unknown> | undefined;
  const newResource = mocks.newResource.bind(mocks);
  mocks.newResource = (args) => {
    received = args.inputs;
    return newResource(args);
  };
  const monitor = pulumi.runtime.getMonitor() as unknown as Record<string, (req: unknown, cb: Callback) => void>;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    const request = req as RegisterRequest;
    received = undefined;
    const registration: { inputs?: Record<string, unknown> } = {};
    register(req, (err, resp) => {
      if (!err && resp) {
        resources.push({
          urn: resp.getUrn(),
          type: request.getType(),
          name: request.getName(),
          parent: request.getParent() || null,
          custom: request.getCustom(),
          inputs: redact(registration.inputs),
          provider: request.getProvider() || undefined,
          dependencies: request.getDependenciesList(),
          replaceOnChanges: request.getReplaceonchangesList(),
          deleteBeforeReplace: request.getDeletebeforereplacedefined() ? request.getDeletebeforereplace() : undefined,
          retainOnDelete: request.getRetainondelete() ?? false,
          ignoreChanges: request.getIgnorechangesList(),
          deletedWith: request.getDeletedwith() || undefined,
        });
      }
      callback(err, resp);
    });
    if (received === undefined)
      throw new Error(
        "the SDK's mock monitor no longer hands the mocks a resource's inputs as it starts its registration: cli/plan/run.ts reads them there",
      );
    registration.inputs = received;
  };
  const registerOutputs = monitor.registerResourceOutputs.bind(monitor);
  monitor.registerResourceOutputs = (req, callback) => {
    const request = req as { getUrn(): string; getOutputs(): Struct };
    if (request.getUrn().endsWith(`::pulumi:pulumi:Stack::${stackName}`)) {
      outputs.value = redact(rpc.deserializeProperties(request.getOutputs())) as Record<string, unknown>;
    }
    registerOutputs(req, callback);
  };
}

const RUNTIME_WARNING = "warning: [runtime] ";

/**
 * Plans the program for a stack config. Config errors come back in `errors`; anything else throws.
 * `preview: false` runs it as `pulumi up` does instead, what the program does only then included (its waits,
 * which call whatever AWS the environment points the SDK at): for tests. `deployed`: the stack outputs its
 * last update left, which the program reads back (components/appliedStateOutputs.ts); none for a new stack.
 */
export async function runPlan(
  config: StackConfig,
  stack: string,
  preview = true,
  deployed: Record<string, unknown> = {},
): Promise<Plan> {
  // A preview runs without stack traces first: the SDK captures one for every promise it makes, to report
  // leaked ones, which costs a third of a plan. An error other than the config's is a bug in the program,
  // and the same plan again, with stack traces, shows where it came from. A run as `pulumi up` calls AWS,
  // so it runs once, with them.
  if (!preview) return planOnce(config, stack, preview, deployed, true);
  try {
    return await planOnce(config, stack, preview, deployed, false);
  } catch {
    return await planOnce(config, stack, preview, deployed, true);
  }
}

async function planOnce(
  config: StackConfig,
  stack: string,
  preview: boolean,
  deployed: Record<string, unknown>,
  stackTraces: boolean,
): Promise<Plan> {
  const runtimeConfig = toRuntimeConfig(config);
  const region = runtimeConfig["aws:region"] ?? "";
  const network = config[`${PROJECT}:network`] as { availabilityZones?: string[] } | undefined;
  // A stack's outputs after an update hold every value: what a plan left unknown is not read back as known.
  const applied = Object.fromEntries(Object.entries(deployed).filter(([, v]) => v !== UNKNOWN));
  const mocks = planMocks(region, network?.availabilityZones ?? [], applied);
  await pulumi.runtime.setMocks(mocks, PROJECT, stack, preview, PLAN_ORGANIZATION);
  pulumi.runtime.setAllConfig(runtimeConfig, []);

  const resources: PlannedResource[] = [];
  const outputs = { value: {} as Record<string, unknown> };
  recordRegistrations(mocks, resources, outputs, `${PROJECT}-${stack}`);
  let errors: readonly FieldError[] | undefined;
  // Without an engine the SDK writes a warning to console.warn with this prefix: keep it in the plan instead.
  const warnings: string[] = [];
  const consoleWarn = console.warn;
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    if (text.startsWith(RUNTIME_WARNING)) warnings.push(text.slice(RUNTIME_WARNING.length));
    else consoleWarn(...args);
  };
  const stackTraceLimit = Error.stackTraceLimit;
  if (!stackTraces) Error.stackTraceLimit = 0;
  try {
    await pulumi.runtime.runInPulumiStack(program);
  } catch (err) {
    if (!(err instanceof ConfigValidationError)) throw err;
    errors = err.errors;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    console.warn = consoleWarn;
  }
  await pulumi.runtime.disconnect();
  resources.sort((a, b) => byCodePoint(a.urn, b.urn));
  return { resources, outputs: outputs.value, errors, warnings };
}

/**
 * One measured run for `npm run bench`, compiled to bin/ and run by plain Node in a process of its own.
 * `dev` and `large` plan those stacks as `npm run plan` does, then plan again in the same process (warm).
 * `floor` is what a plan cannot avoid: it loads the root of every Pulumi SDK package the program depends on,
 * as a program importing `@pulumi/aws` does, then every SDK module file a plan loaded (the bench passes the
 * list: each class the program declares), and runs an empty program under the same mocks. `preview` runs
 * index.ts as `pulumi preview` does (the source-map support Pulumi's Node.js runner registers, then ts-node
 * as it registers it: pulumiRunner.ts), on the dev stack, under the plan's mocks. `examples` plans every
 * example, then each again, timing each second (warm) plan. Prints one JSON line.
 *
 * Each scenario loads only what it measures, in the order its entry point does: the plans enable Node's
 * compile cache first (components/compileCache.ts), as cli/plan.ts does; the preview gets it from index.ts; the floor
 * goes without, as a program that loads the SDK package roots would. `registration` registers as many
 * minimal resources as the dev plan did (the bench passes the count): the SDK's own cost per resource.
 */
import type * as Pulumi from "@pulumi/pulumi";
import { readFileSync } from "fs";
import { dirname, join, sep } from "path";
import { examples, PROJECT_DIR } from "../cli/plan/examples";
import { PLAN_ORGANIZATION, planMocks } from "../cli/plan/mocks";
import { loadStackConfig, setPath, StackConfig, toRuntimeConfig } from "../cli/plan/stackConfig";
import { PROJECT } from "../config/read";
import { registerTypeScriptAsPulumiDoes } from "./pulumiRunner";

export interface TargetResult {
  resources: number;
  /** Wall time from the start of the process to the end of the first plan (or of the floor's work). */
  wallMs: number;
  /** CPU time (user and system) at that point: steadier than wall time on a busy machine. */
  cpuMs: number;
  /** Peak resident memory at that point. */
  maxRssKb: number;
  /** A second plan in the same process, after the first. */
  warmPlanMs: number;
  /** Module files of the Pulumi SDKs the process loaded, in load order. */
  sdkModules: string[];
  /** Whether anything registered a TypeScript compiler (ts-node) for `.ts` files. */
  typescriptCompiler: boolean;
  /** `examples`: each example's resources and warm plan time. */
  examples?: { name: string; resources: number; warmMs: number }[];
}

export const LARGE = { zones: 6, controlPlaneNodes: 3, nodeGroups: 20 };

export function scenarioConfig(scenario: string): StackConfig {
  const config = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml"));
  if (scenario === "large") {
    for (let i = 0; i < LARGE.zones; i++) setPath(config, `network.availabilityZones[${i}]`, `us-east-1${"abcdef"[i]}`);
    setPath(config, "controlPlane.count", String(LARGE.controlPlaneNodes));
    for (let i = 0; i < LARGE.nodeGroups; i++) {
      setPath(config, `nodeGroups[${i}].name`, `group-${i}`);
      setPath(config, `nodeGroups[${i}].instanceType`, "m6i.xlarge");
      setPath(config, `nodeGroups[${i}].maxSize`, "6");
    }
  }
  return config;
}

const SDK_DIR = `${sep}node_modules${sep}@pulumi${sep}`;

/** The Pulumi SDK packages the program depends on (package.json), whose roots the floor loads. */
function sdkPackages(): string[] {
  const { dependencies } = JSON.parse(readFileSync(join(PROJECT_DIR, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  return Object.keys(dependencies).filter((name) => name.startsWith("@pulumi/"));
}

/** The Pulumi SDK, loaded by the scenario when its entry point would load it. */
const sdk = (): Promise<typeof Pulumi> => import("@pulumi/pulumi");

async function floor(modulesFile: string): Promise<number> {
  for (const root of sdkPackages()) await import(root);
  const pulumi = await sdk();
  for (const file of JSON.parse(readFileSync(modulesFile, "utf8")) as string[]) await import(file);
  await pulumi.runtime.setMocks(planMocks("us-east-1", ["us-east-1a"]), "cilium-cluster", "floor", false);
  await pulumi.runtime.runInPulumiStack(async () => ({}));
  await pulumi.runtime.disconnect();
  return 1;
}

/**
 * What the SDK costs to register `count` resources under the plan's mocks, whatever the program: one minimal
 * SSM parameter each (three short inputs). The dev plan registers as many; what it costs above this is the
 * program's own work, its modules, and its resources' larger inputs.
 */
async function registration(count: number): Promise<number> {
  const pulumi = await sdk();
  const { Parameter } = await import("@pulumi/aws/ssm/parameter");
  await pulumi.runtime.setMocks(planMocks("us-east-1", ["us-east-1a"]), PROJECT, "registration", true);
  await pulumi.runtime.runInPulumiStack(async () => {
    for (let i = 0; i < count; i++) new Parameter(`parameter-${i}`, { name: `/p/${i}`, type: "String", value: "v" });
    return {};
  });
  await pulumi.runtime.disconnect();
  return count;
}

/** What `npm run plan` does: read the stack config, plan, render the text it prints. */
async function plan(config: StackConfig, stack: string): Promise<number> {
  const [{ runPlan }, { formatPlan }] = await Promise.all([import("../cli/plan/run"), import("../cli/plan/format")]);
  const result = await runPlan(config, stack);
  if (result.errors) throw new Error(`the ${stack} config is invalid`);
  if (formatPlan(result, "text").length === 0) throw new Error("empty plan output");
  return result.resources.length;
}

/**
 * The program side of `pulumi preview` on the dev stack: Pulumi's runner registers source-map support and
 * ts-node, then loads index.ts and runs its function, isDryRun true.
 */
async function preview(): Promise<number> {
  const runner = dirname(require.resolve("@pulumi/pulumi/cmd/run"));
  await import(require.resolve("source-map-support/register", { paths: [runner] }));
  registerTypeScriptAsPulumiDoes(PROJECT_DIR);
  const { default: program } = (await import(join(PROJECT_DIR, "index.ts"))) as {
    default: () => Promise<Record<string, unknown>>;
  };
  const pulumi = await sdk();
  const config = scenarioConfig("dev");
  const runtimeConfig = toRuntimeConfig(config);
  const region = runtimeConfig["aws:region"] ?? "";
  const network = config[`${PROJECT}:network`] as { availabilityZones?: string[] } | undefined;
  const mocks = planMocks(region, network?.availabilityZones ?? []);
  let resources = 0;
  const newResource = mocks.newResource.bind(mocks);
  mocks.newResource = (args) => {
    resources++;
    return newResource(args);
  };
  await pulumi.runtime.setMocks(mocks, PROJECT, "dev", true, PLAN_ORGANIZATION);
  pulumi.runtime.setAllConfig(runtimeConfig, []);
  await pulumi.runtime.runInPulumiStack(program);
  await pulumi.runtime.disconnect();
  return resources;
}

type Example = NonNullable<TargetResult["examples"]>[number];

async function planExamples(): Promise<Example[]> {
  const configs = examples().map((e) => ({
    name: e.name,
    config: loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), e.file),
  }));
  for (const { name, config } of configs) await plan(config, name);
  const measured: Example[] = [];
  for (const { name, config } of configs) {
    const start = performance.now();
    const resources = await plan(config, name);
    measured.push({ name, resources, warmMs: performance.now() - start });
  }
  return measured;
}

/** `argument`: the floor's SDK module list, or the number of resources the registration floor registers. */
export async function measureScenario(scenario: string, argument: string): Promise<void> {
  let resources: number;
  let measured: Example[] | undefined;
  if (scenario !== "floor" && scenario !== "preview") await import("../components/compileCache");
  if (scenario === "floor") resources = await floor(argument);
  else if (scenario === "registration") resources = await registration(Number(argument));
  else if (scenario === "preview") resources = await preview();
  else if (scenario === "examples") {
    measured = await planExamples();
    resources = measured.reduce((sum, e) => sum + e.resources, 0);
  } else resources = await plan(scenarioConfig(scenario), scenario);
  // performance.now() counts from the start of the process.
  const wallMs = performance.now();
  const { userCPUTime, systemCPUTime, maxRSS: maxRssKb } = process.resourceUsage();
  let warmPlanMs = 0;
  if (scenario === "dev" || scenario === "large") {
    await plan(scenarioConfig(scenario), scenario);
    warmPlanMs = performance.now() - wallMs;
  }
  const result: TargetResult = {
    resources,
    wallMs,
    cpuMs: (userCPUTime + systemCPUTime) / 1000,
    maxRssKb,
    warmPlanMs,
    sdkModules: Object.keys(require.cache).filter((file) => file.includes(SDK_DIR)),
    typescriptCompiler: require.extensions[".ts"] !== undefined,
    examples: measured,
  };
  console.log(JSON.stringify(result));
}

if (require.main === module) {
  measureScenario(process.argv[2], process.argv[3]).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * One measured run for `npm run bench`, compiled to bin/ and run by plain Node in a process of its own.
 * `dev` and `large` plan those stacks as `npm run plan` does, then plan again in the same process (warm).
 * `floor` is what a plan cannot avoid: it loads every SDK module file a plan loaded (the bench passes the
 * list) and runs an empty program under the same mocks. Prints one JSON line.
 */
import * as pulumi from "@pulumi/pulumi";
import { readFileSync } from "fs";
import { join, sep } from "path";
import { PROJECT_DIR } from "../plan/examples";
import { formatPlan } from "../plan/format";
import { planMocks } from "../plan/mocks";
import { runPlan } from "../plan/run";
import { loadStackConfig, setPath, StackConfig } from "../plan/stackConfig";

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

async function floor(modulesFile: string): Promise<number> {
  for (const file of JSON.parse(readFileSync(modulesFile, "utf8")) as string[]) await import(file);
  await pulumi.runtime.setMocks(planMocks("us-east-1", ["us-east-1a"]), "cilium-cluster", "floor", false);
  await pulumi.runtime.runInPulumiStack(async () => ({}));
  await pulumi.runtime.disconnect();
  return 1;
}

/** What `npm run plan` does: read the stack config, plan, render the text it prints. */
async function plan(scenario: string): Promise<number> {
  const result = await runPlan(scenarioConfig(scenario), scenario);
  if (result.errors) throw new Error(`the ${scenario} config is invalid`);
  if (formatPlan(result, "text").length === 0) throw new Error("empty plan output");
  return result.resources.length;
}

export async function measureScenario(scenario: string, modulesFile: string): Promise<void> {
  const resources = scenario === "floor" ? await floor(modulesFile) : await plan(scenario);
  // performance.now() counts from the start of the process.
  const wallMs = performance.now();
  const { userCPUTime, systemCPUTime, maxRSS: maxRssKb } = process.resourceUsage();
  let warmPlanMs = 0;
  if (scenario !== "floor") {
    await plan(scenario);
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
  };
  console.log(JSON.stringify(result));
}

if (require.main === module) {
  measureScenario(process.argv[2], process.argv[3]).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

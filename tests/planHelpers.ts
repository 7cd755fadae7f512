/** Plans of the real program under the plan's mocks, for component tests. */
import { readFileSync } from "fs";
import { join } from "path";
import { resourcesFromFiles } from "../cli/plan/artifacts";
import { GOLDEN_DIR, PROJECT_DIR } from "../cli/plan/examples";
import { Plan, PlannedResource, runPlan } from "../cli/plan/run";
import { loadStackConfig, setPath, StackConfig } from "../cli/plan/stackConfig";

export function devConfig(): StackConfig {
  return loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml"));
}

/** The dev stack with `pulumi config set --path` edits applied. */
export function configWith(edits: Record<string, string> = {}, base: StackConfig = devConfig()): StackConfig {
  const config = structuredClone(base);
  for (const [path, value] of Object.entries(edits)) setPath(config, path, value);
  return config;
}

export async function planWith(edits: Record<string, string> = {}, base?: StackConfig): Promise<Plan> {
  const plan = await runPlan(configWith(edits, base), "test");
  if (plan.errors) throw new Error(`config invalid: ${JSON.stringify(plan.errors)}`);
  return plan;
}

export const ofType = (plan: Plan, type: string): PlannedResource[] => plan.resources.filter((r) => r.type === type);

export const named = (plan: Plan, type: string, name: string): PlannedResource => {
  const found = plan.resources.find((r) => r.type === type && r.name === name);
  if (!found) throw new Error(`no ${type} named ${name}`);
  return found;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const inputs = (r: PlannedResource): any => r.inputs;

/** A group's installer: its object in the bootstrap bucket, which the group's user data (the loader) fetches. */
export const installerOf = (plan: Plan, group: string): string =>
  inputs(named(plan, "aws:s3/bucketObjectv2:BucketObjectv2", `${group}-bootstrap`)).content;

/** Every group's installer, by group. */
export const installers = (plan: Plan): [string, string][] =>
  ofType(plan, "aws:s3/bucketObjectv2:BucketObjectv2").map((r) => [
    r.name.replace(/-bootstrap$/, ""),
    inputs(r).content,
  ]);

/** Switches the dev stack from ENI to another IPAM mode (with the settings that mode needs). */
export const NON_ENI: Record<string, string> = {
  "networking.cilium.ipam": "",
  "networking.cilium.disableMasquerade": "false",
};

/** Everything a component declared, at any depth: the resources whose `parent` chain reaches it. */
export function childrenOf(plan: Plan, component: PlannedResource): PlannedResource[] {
  const below = new Set([component.urn]);
  const children: PlannedResource[] = [];
  // Registration order is lost in the sorted plan; repeat until no resource joins the subtree.
  for (let grew = true; grew;) {
    grew = false;
    for (const r of plan.resources) {
      if (r.parent && below.has(r.parent) && !below.has(r.urn)) {
        below.add(r.urn);
        children.push(r);
        grew = true;
      }
    }
  }
  return children;
}

/** The custom resources a component declared, for tests that look at one component's objects only. */
export const declaredBy = (plan: Plan, componentType: string, componentName: string): PlannedResource[] =>
  childrenOf(plan, named(plan, componentType, componentName)).filter((r) => r.custom);

/** The resources of an example's golden plan, with its launch templates' user data as the plan declared it. */
export function goldenResources(example: string): PlannedResource[] {
  return resourcesFromFiles((name) => readFileSync(join(GOLDEN_DIR, example, name), "utf8"));
}

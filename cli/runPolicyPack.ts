/**
 * `npm run policy`: the policy pack, offline, against every stack's plan. With directories written by
 * `npm run plan -- --out DIR` it checks those plans (CI does this with the plans it already made);
 * without, it plans every `Pulumi.<stack>.yaml` and the examples. Exit 1 on any violation.
 */
import { existsSync, readFileSync } from "fs";
import { join, relative } from "path";
import { resourcesFromFiles } from "./plan/artifacts";
import { PROJECT_DIR, stackFiles } from "./plan/examples";
import { runPlan } from "./plan/run";
import { loadStackConfig } from "./plan/stackConfig";
import { evaluatePlan, PlannedInputs } from "./policy/offline";

async function plans(dirs: string[]): Promise<[string, PlannedInputs[]][]> {
  if (dirs.length > 0) {
    return dirs.map((dir) => {
      const file = join(dir, "resources.json");
      if (!existsSync(file)) throw new Error(`${dir}: no resources.json (write it with npm run plan -- --out)`);
      return [dir, resourcesFromFiles((name) => readFileSync(join(dir, name), "utf8")) as PlannedInputs[]];
    });
  }
  const out: [string, PlannedInputs[]][] = [];
  for (const stack of stackFiles()) {
    const config = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), stack.file);
    const plan = await runPlan(config, stack.name);
    if (plan.errors) throw new Error(`${relative(PROJECT_DIR, stack.file)}: the config is invalid; run npm run plan`);
    out.push([relative(PROJECT_DIR, stack.file), plan.resources]);
  }
  return out;
}

async function main(): Promise<number> {
  let failed = 0;
  for (const [name, resources] of await plans(process.argv.slice(2))) {
    const found = evaluatePlan(resources);
    process.stdout.write(
      found.length ? `${name}: ${found.length} violation(s)\n` : `${name}: ok (${resources.length} resources)\n`,
    );
    for (const v of found) process.stdout.write(`  ${v}\n`);
    if (found.length) failed++;
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`policy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);

/** A stack file's plan as the files `--out` writes: what golden tests compare and update-expected writes. */
import { join } from "path";
import { planFiles } from "./artifacts";
import { PROJECT_DIR } from "./examples";
import { runPlan } from "./run";
import { loadStackConfig } from "./stackConfig";

export async function renderStackFiles(stackFile: string, stack: string): Promise<Map<string, string>> {
  const plan = await runPlan(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), stackFile), stack);
  if (plan.errors) throw new Error(`${stackFile} is invalid: ${plan.errors.map((e) => e.field).join(", ")}`);
  return planFiles(plan);
}

/** `npm run plan` driven through main(), its stdout and stderr captured, for the CLI's tests. */
import { mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { main } from "../../cli/plan/cli";

export async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

export const scratch = (): string => mkdtempSync(join(tmpdir(), "plan-test-"));

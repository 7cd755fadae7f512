/**
 * Commands for the box: each runs with a time limit, and a failure carries what the command printed.
 */
import { execFile, spawnSync } from "child_process";

export interface Ran {
  stdout: string;
  stderr: string;
}

/** PROGRAM ARGS, asynchronously; rejects with its output when it fails or outlives TIMEOUT_MS. */
export function run(program: string, args: string[], options: { input?: string; timeoutMs?: number } = {}) {
  return new Promise<Ran>((resolve, reject) => {
    const child = execFile(
      program,
      args,
      { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${program} ${args.join(" ")} failed: ${error.message}\n${stderr}${stdout}`));
        else resolve({ stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** PROGRAM ARGS, synchronously, for set-up and clean-up steps; throws with its output when it fails. */
export function runSync(program: string, args: string[], options: { allowFailure?: boolean } = {}): string {
  const result = spawnSync(program, args, { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`${program} ${args.join(" ")} failed (${result.status}): ${result.stderr}${result.stdout}`);
  }
  return result.stdout ?? "";
}

/** Resolves once CHECK returns a value, polling every INTERVAL_MS; rejects after TIMEOUT_MS naming WHAT. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 2000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

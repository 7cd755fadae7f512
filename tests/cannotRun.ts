/**
 * A test that cannot run here (a tool, a binary or a kernel feature it needs is missing) skips, naming the
 * reason and what provides it; under `CI=true`, where `.ci/run` provides everything, it fails instead, so CI
 * can never pass by skipping.
 */
export function cannotRun(context: Mocha.Context, reason: string, env = process.env): never {
  if (env.CI === "true") throw new Error(`${reason} (required when CI=true)`);
  process.stderr.write(`skipped "${context.currentTest?.fullTitle() ?? context.test?.fullTitle()}": ${reason}\n`);
  context.skip();
}

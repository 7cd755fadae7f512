/**
 * Tests that run a Debian tool (shellcheck, cloud-init, openssl) call `requireDebianTool` first. When the
 * tool is not on PATH the test skips, naming the package to install; when `CI=true` (where `.ci/run`
 * installs the tools) a missing tool fails the test instead, so CI can never pass by skipping.
 */
import { accessSync, constants } from "fs";
import { delimiter, join } from "path";
import { cannotRun } from "./cannotRun";

/** True when `command` is an executable file in one of PATH's directories. */
export function onPath(command: string, path: string = process.env.PATH ?? ""): boolean {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** The reason a test cannot run, or undefined when the tool is there. Throws under `CI=true`. */
export function missingDebianTool(command: string, debianPackage: string, env = process.env): string | undefined {
  if (onPath(command, env.PATH)) return undefined;
  const reason = `${command} is not on PATH: install the Debian package ${debianPackage}`;
  if (env.CI === "true") throw new Error(`${reason} (required when CI=true)`);
  return reason;
}

/** Skips the calling test or hook (with a visible reason) when the tool is missing. */
export function requireDebianTool(context: Mocha.Context, command: string, debianPackage: string): void {
  const reason = missingDebianTool(command, debianPackage);
  if (reason) cannotRun(context, reason);
}

/**
 * A stack's outputs, as `pulumi stack output --json` prints them: asked of the Pulumi CLI (the selected stack,
 * or `--stack NAME`), or read from a file that command wrote, on a machine without the CLI or the backend.
 */
import { execFileSync } from "child_process";
import { readFileSync } from "fs";
import { fromCaller } from "./callerPath";

export interface OutputsSource {
  stack?: string;
  file?: string;
}

/** The outputs; an error that says where they were looked for when they cannot be read. */
export function readStackOutputs(source: OutputsSource = {}): Record<string, unknown> {
  if (source.file !== undefined) {
    try {
      return JSON.parse(readFileSync(fromCaller(source.file), "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`cannot read the stack outputs in ${source.file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const args = ["stack", "output", "--json", ...(source.stack ? ["--stack", source.stack] : [])];
  try {
    return JSON.parse(execFileSync("pulumi", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    const why =
      code === "ENOENT"
        ? "the Pulumi CLI is not installed"
        : String(stderr ?? "")
            .trim()
            .split("\n")[0];
    throw new Error(`pulumi ${args.join(" ")} failed${why ? `: ${why}` : ""}`, { cause: error });
  }
}

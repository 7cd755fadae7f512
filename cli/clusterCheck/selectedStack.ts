/**
 * The stack the Pulumi CLI works on in this project (`pulumi stack select`), as `pulumi stack --show-name`
 * prints it: the stack whose outputs `npm run kubeconfig` reads, so a check without `--stack` judges the
 * cluster that kubeconfig reaches, against that stack's config.
 */
import { execFileSync } from "child_process";
import { PROJECT_DIR } from "../plan/examples";

/** The selected stack's name, or why there is none (the CLI missing, no stack selected). */
export function selectedStack(): { stack: string } | { reason: string } {
  try {
    const stack = execFileSync("pulumi", ["stack", "--show-name"], {
      cwd: PROJECT_DIR,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      // It asks the backend (pulumi login) for the stack: a backend that does not answer is no answer.
      timeout: 60_000,
    }).trim();
    return stack ? { stack } : { reason: "pulumi stack --show-name printed no stack" };
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    if (code === "ENOENT") return { reason: "the Pulumi CLI is not installed" };
    if (code === "ETIMEDOUT") return { reason: "pulumi stack --show-name did not answer within a minute" };
    const said = String(stderr ?? "")
      .trim()
      .split("\n")[0];
    return { reason: `pulumi stack --show-name failed${said ? `: ${said}` : ""}` };
  }
}

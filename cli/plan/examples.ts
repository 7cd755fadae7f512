/** The stacks with golden renders: the dev stack and every stack file in examples/. */
import { existsSync, readdirSync, readFileSync } from "fs";
import { dirname, join, resolve } from "path";
import { parse } from "yaml";

/** The directory of Pulumi.yaml, whether this runs from the sources (cli/plan/) or compiled (bin/cli/plan/). */
export const PROJECT_DIR = [resolve(__dirname, "..", ".."), resolve(__dirname, "..", "..", "..")].find((dir) =>
  existsSync(join(dir, "Pulumi.yaml")),
)!;
export const GOLDEN_DIR = join(PROJECT_DIR, "tests", "golden");

export interface Example {
  /** Stack name, also the golden directory's name. */
  name: string;
  file: string;
}

export function examples(): Example[] {
  const dir = join(PROJECT_DIR, "examples");
  const files = readdirSync(dir)
    .filter((f) => /^Pulumi\..+\.yaml$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/^Pulumi\./, "").replace(/\.yaml$/, ""), file: join(dir, f) }));
  return [{ name: "dev", file: join(PROJECT_DIR, "Pulumi.dev.yaml") }, ...files];
}

/** Every stack file a team keeps: each `Pulumi.<stack>.yaml` at the top (not Pulumi.yaml), then the examples. */
export function stackFiles(): Example[] {
  const own = readdirSync(PROJECT_DIR)
    .filter((f) => /^Pulumi\..+\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/^Pulumi\./, "").replace(/\.ya?ml$/, ""), file: join(PROJECT_DIR, f) }));
  return [...own, ...examples().filter((e) => dirname(e.file) !== PROJECT_DIR)];
}

/** The dev stack's keys of this project, without the `cilium-cluster:` prefix (the docs' `Set:` examples). */
export function devStackKeys(): Record<string, unknown> {
  const { config } = parse(readFileSync(join(PROJECT_DIR, "Pulumi.dev.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  const prefix = "cilium-cluster:";
  return Object.fromEntries(
    Object.entries(config)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [key.slice(prefix.length), value]),
  );
}

/** The product's TypeScript files (the program, its CLI tools and the cluster check), for tests that read the tree. */
import { readdirSync, statSync } from "fs";
import { join } from "path";
import { PROJECT_DIR } from "../plan/examples";

const ROOTS = ["index.ts", "program.ts", "config", "catalogs", "components", "plan", "policy", "scripts", "validate"];

export function productFiles(): string[] {
  return ROOTS.flatMap((root) => {
    const full = join(PROJECT_DIR, root);
    if (!statSync(full).isDirectory()) return [full];
    return readdirSync(full, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(full, f));
  });
}

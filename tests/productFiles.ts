/** The product's TypeScript files (the program, its CLI tools and the cluster check), for tests that read the tree. */
import { readdirSync, statSync } from "fs";
import { join } from "path";
import { PROJECT_DIR } from "../cli/plan/examples";

const ROOTS = ["index.ts", "config", "catalogs", "components", "cli", "devtools"];

export function productFiles(): string[] {
  return ROOTS.flatMap((root) => {
    const full = join(PROJECT_DIR, root);
    if (!statSync(full).isDirectory()) return [full];
    return readdirSync(full, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.includes("node_modules"))
      .map((f) => join(full, f));
  });
}

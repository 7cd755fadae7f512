// Well-known ports are written once: no TypeScript source but components/wellKnownPorts.ts spells one.
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import { join, relative } from "path";
import * as ts from "typescript";
import { PROJECT_DIR } from "../plan/examples";
import * as ports from "../components/wellKnownPorts";

const WELL_KNOWN = new Set(Object.values(ports).flatMap((p) => (typeof p === "number" ? [p] : Object.values(p))));

function sources(): string[] {
  const roots = ["components", "plan", "policy", "spec", "program.ts"];
  return roots.flatMap((root) => {
    if (root.endsWith(".ts")) return [join(PROJECT_DIR, root)];
    return readdirSync(join(PROJECT_DIR, root), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.includes("node_modules"))
      .map((f) => join(PROJECT_DIR, root, f));
  });
}

describe("well-known ports", () => {
  it("are written only in components/wellKnownPorts.ts", () => {
    expect(WELL_KNOWN).to.include.members([443, 6443, 2379, 2380, 10250, 4240, 8472, 6081]);
    const found: string[] = [];
    for (const file of sources().filter((f) => !f.endsWith("wellKnownPorts.ts"))) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
      const visit = (node: ts.Node): void => {
        if (ts.isNumericLiteral(node) && WELL_KNOWN.has(Number(node.text))) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push(`${relative(PROJECT_DIR, file)}:${line + 1}: ${node.text}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).to.deep.equal([]);
  });
});

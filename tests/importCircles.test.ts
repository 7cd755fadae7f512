// No import circle among product files but through types: a module a circle loads at run time may see
// another's exports still undefined, depending on which of them was loaded first.
import { expect } from "chai";
import { existsSync, readFileSync } from "fs";
import { dirname, join, relative } from "path";
import * as ts from "typescript";
import { PROJECT_DIR } from "../cli/plan/examples";
import { productFiles } from "./productFiles";

/** The project files FILE imports at run time: not `import type`, nor an import of types only. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      const typesOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      if (!typesOnly) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers
    .filter((s) => s.startsWith("."))
    .map((s) => join(dirname(file), s))
    .map((path) => [`${path}.ts`, join(path, "index.ts")].find(existsSync) ?? path)
    .filter((path) => path.endsWith(".ts"));
}

/** Every circle of the graph, each once, as the files around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push(path.slice(at));
    if (done.has(file)) return;
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

describe("import circles", () => {
  it("product files import one another at run time without a circle", () => {
    const files = productFiles();
    expect(files.length).to.be.greaterThan(100);
    const graph = new Map(files.map((f) => [f, valueImports(f)]));
    const shown = circles(graph).map((c) => c.map((f) => relative(PROJECT_DIR, f)).join(" → "));
    expect(shown).to.deep.equal([]);
  });

  it("finds a circle when there is one", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(circles(graph)).to.deep.equal([["a", "b", "c"]]);
  });
});

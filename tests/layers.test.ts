// The layers the layout in docs/development.md promises, read from the tree: config/ and
// catalogs/ import nothing of components/; the program never imports the tools in cli/ or devtools/; no two
// folders of components/ import each other; the shared infrastructure reaches no feature. Type-only imports
// count: they tie the folders all the same.
import { expect } from "chai";
import { readFileSync } from "fs";
import { dirname, join, relative } from "path";
import * as ts from "typescript";
import { PROJECT_DIR } from "../cli/plan/examples";
import { productFiles } from "./productFiles";

/** The project-relative paths FILE imports (any import or re-export, of values or types). */
function imports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  return source.statements
    .flatMap((s) =>
      (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier
        ? [(s.moduleSpecifier as ts.StringLiteral).text]
        : [],
    )
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(PROJECT_DIR, join(dirname(file), spec)));
}

/** Each file's imports, both as project-relative paths. */
function importEdges(): { from: string; to: string }[] {
  return productFiles().flatMap((file) => imports(file).map((to) => ({ from: relative(PROJECT_DIR, file), to })));
}

const top = (path: string) => path.split("/")[0];
/** The folder of components/ a path is in, or undefined for a file directly in components/. */
const componentFolder = (path: string) => {
  const parts = path.split("/");
  return parts[0] === "components" && parts.length > 2 ? parts[1] : undefined;
};

/** Pairs of folders that import each other, each once, with one import each way. */
function tiedBothWays(edges: { from: string; to: string }[]): string[] {
  const between = new Map<string, string>();
  for (const { from, to } of edges) {
    const [a, b] = [componentFolder(from), componentFolder(to)];
    if (a && b && a !== b) between.set(`${a}→${b}`, `${from} → ${to}`);
  }
  return [...between.keys()]
    .filter((key) => {
      const [a, b] = key.split("→");
      return a < b && between.has(`${b}→${a}`);
    })
    .map((key) => {
      const [a, b] = key.split("→");
      return `${a} ↔ ${b}: ${between.get(key)}; ${between.get(`${b}→${a}`)}`;
    });
}

/** The shared infrastructure of components/; every other folder there is a feature's. */
const INFRASTRUCTURE = ["network", "iam", "nodes", "k8s"];

/** Each path from an infrastructure file to a feature's file, through any chain of imports. */
function infrastructureReachingFeatures(edges: { from: string; to: string }[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const key = from.replace(/\.ts$/, "");
    next.set(key, [...(next.get(key) ?? []), to]);
  }
  const isInfrastructure = (path: string) => INFRASTRUCTURE.includes(componentFolder(path) ?? "");
  const isFeature = (path: string) => componentFolder(path) !== undefined && !isInfrastructure(path);
  const found: string[] = [];
  for (const start of new Set(edges.map((e) => e.from.replace(/\.ts$/, "")).filter(isInfrastructure))) {
    const seen = new Set([start]);
    const queue = [[start]];
    while (queue.length > 0) {
      const chain = queue.shift()!;
      for (const to of next.get(chain[chain.length - 1]) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        if (isFeature(to)) found.push([...chain, to].join(" → "));
        else queue.push([...chain, to]);
      }
    }
  }
  return found;
}

describe("layers", () => {
  const edges = importEdges();

  it("config/ and catalogs/ import nothing of components/", () => {
    const crossing = edges.filter((e) => ["config", "catalogs"].includes(top(e.from)) && top(e.to) === "components");
    expect(crossing.map((e) => `${e.from} → ${e.to}`)).to.deep.equal([]);
  });

  it("the program never imports the tools in cli/ or devtools/", () => {
    const program = ["index.ts", "components", "config", "catalogs"];
    const crossing = edges.filter((e) => program.includes(top(e.from)) && ["cli", "devtools"].includes(top(e.to)));
    expect(crossing.map((e) => `${e.from} → ${e.to}`)).to.deep.equal([]);
  });

  it("no two folders of components/ import each other", () => {
    expect(edges.length).to.be.greaterThan(500);
    expect(tiedBothWays(edges)).to.deep.equal([]);
  });

  it("the shared infrastructure (network, IAM roles, nodes, the Kubernetes layer) reaches no feature", () => {
    expect(infrastructureReachingFeatures(edges)).to.deep.equal([]);
  });

  it("finds infrastructure that reaches a feature through another file", () => {
    const edges = [
      { from: "components/nodes/a.ts", to: "components/registry" },
      { from: "components/registry.ts", to: "components/drain/b" },
      { from: "components/drain/c.ts", to: "components/nodes/a" },
    ];
    expect(infrastructureReachingFeatures(edges)).to.deep.equal([
      "components/nodes/a → components/registry → components/drain/b",
    ]);
  });

  it("finds two folders that import each other", () => {
    const edges = [
      { from: "components/a/x.ts", to: "components/b/y" },
      { from: "components/b/z.ts", to: "components/a/x" },
      { from: "components/c/w.ts", to: "components/a/x" },
    ];
    expect(tiedBothWays(edges)).to.deep.equal([
      "a ↔ b: components/a/x.ts → components/b/y; components/b/z.ts → components/a/x",
    ]);
  });
});

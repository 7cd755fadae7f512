// Well-known ports are written once: no TypeScript source but components/wellKnownPorts.ts spells one.
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import { join, relative } from "path";
import * as ts from "typescript";
import { PROJECT_DIR } from "../plan/examples";
import * as ports from "../components/wellKnownPorts";

const WELL_KNOWN = new Set(Object.values(ports).flatMap((p) => (typeof p === "number" ? [p] : Object.values(p))));

function sources(): string[] {
  const roots = ["components", "plan", "policy", "config", "catalogs", "program.ts"];
  return roots.flatMap((root) => {
    if (root.endsWith(".ts")) return [join(PROJECT_DIR, root)];
    return readdirSync(join(PROJECT_DIR, root), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.includes("node_modules"))
      .map((f) => join(PROJECT_DIR, root, f));
  });
}

describe("well-known ports", () => {
  it("has the API server listen on the load balancers' port, not kubeadm's default 6443", () => {
    // A control-plane node reaches the API's name pinned to itself: at its own API server, on the same port.
    expect(ports.KUBE_APISERVER).to.equal(ports.API_LISTENER);
    expect(ports.KUBE_APISERVER).to.equal(443);
    expect(WELL_KNOWN.has(6443)).to.equal(false);
  });

  it("are written only in components/wellKnownPorts.ts", () => {
    expect(WELL_KNOWN).to.include.members([443, 2379, 2380, 10250, 4240, 8472, 6081, 9879, 9234]);
    const found: string[] = [];
    for (const file of sources().filter((f) => !f.endsWith("wellKnownPorts.ts"))) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
      const visit = (node: ts.Node): void => {
        const where = () => {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          return `${relative(PROJECT_DIR, file)}:${line + 1}`;
        };
        if (ts.isNumericLiteral(node) && WELL_KNOWN.has(Number(node.text))) found.push(`${where()}: ${node.text}`);
        // A port in text, as in `127.0.0.1:9234`.
        if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
          for (const [, port] of node.text.matchAll(/:(\d+)(?!\d)/g))
            if (WELL_KNOWN.has(Number(port))) found.push(`${where()}: ${JSON.stringify(node.text)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).to.deep.equal([]);
  });
});

// Well-known ports are written once: no TypeScript source but components/wellKnownPorts.ts spells one, and
// neither the node's bash nor its systemd units do (bash reads them from its header).
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import { join, relative } from "path";
import * as ts from "typescript";
import { PROJECT_DIR } from "../cli/plan/examples";
import { bootstrapConfig } from "../components/nodes/bootstrapConfig";
import { MODULE_DIR } from "../components/nodes/bootstrapModuleFiles";
import { instanceGroups } from "../components/nodes/instanceGroups";
import { systemdUnits } from "../components/nodes/systemdUnits";
import * as ports from "../components/wellKnownPorts";
import { validateConfig } from "../components/clusterConfigValidation";
import { baseConfig, REGION } from "./fixtures";

const WELL_KNOWN = new Set(Object.values(ports).flatMap((p) => (typeof p === "number" ? [p] : Object.values(p))));

function sources(): string[] {
  const roots = ["components", "config", "catalogs", "cli", "index.ts"];
  return roots.flatMap((root) => {
    if (root.endsWith(".ts")) return [join(PROJECT_DIR, root)];
    return readdirSync(join(PROJECT_DIR, root), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.includes("node_modules"))
      .map((f) => join(PROJECT_DIR, root, f));
  });
}

/** The well-known ports a line of bash or a unit spells: whole numbers, not parts of a version or a name. */
const portsIn = (line: string) =>
  [...line.matchAll(/(?<![\w.])\d+(?![\w.])/g)].map((m) => Number(m[0])).filter((n) => WELL_KNOWN.has(n));

/** The node's texts that are not TypeScript, by name: the bootstrap's modules and every role's units. */
function nodeTexts(): [string, string][] {
  const modules = readdirSync(MODULE_DIR)
    .filter((f) => f.endsWith(".sh"))
    .map((f): [string, string] => [
      relative(PROJECT_DIR, join(MODULE_DIR, f)),
      readFileSync(join(MODULE_DIR, f), "utf8"),
    ]);
  const spec = validateConfig(baseConfig(), REGION).spec;
  const units = instanceGroups(spec).flatMap((group) =>
    Object.entries(
      systemdUnits(
        bootstrapConfig(spec, group, { internal: "api.internal", public: "api", caParameter: "/cluster-ca" }),
      ),
    ).map(([name, text]): [string, string] => [`${group.name} ${name}`, text]),
  );
  return [...modules, ...units];
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

  it("are written in no bootstrap module and no systemd unit", () => {
    const found = nodeTexts().flatMap(([name, text]) =>
      text
        .split("\n")
        .map((line, i) => ({ line, where: `${name}:${i + 1}` }))
        .filter(({ line }) => portsIn(line).length > 0)
        .map(({ line, where }) => `${where}: ${line.trim()}`),
    );
    expect(found).to.deep.equal([]);
  });

  it("finds a port in bash, and no version or file mode", () => {
    expect(portsIn('endpoints+="https://$address:2379"')).to.deep.equal([2379]);
    expect(portsIn("sleep 443")).to.deep.equal([443]);
    expect(portsIn('install -m 0600 x; echo "v1.443.2 v2379x"')).to.deep.equal([]);
  });
});

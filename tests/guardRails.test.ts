// Determinism across processes and orders, secret hygiene over every render, hostile values.
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import { readdirSync, readFileSync, statSync } from "fs";
import fc from "fast-check";
import { join } from "path";
import { shellQuote } from "../components/nodes/shell";
import { renderUserData } from "../components/nodes/userData";
import { bootstrapConfig } from "../components/nodes/bootstrapConfig";
import { instanceGroups } from "../components/nodes/instanceGroups";
import { renderCiliumManifests } from "../components/cilium/ciliumManifests";
import { examples, GOLDEN_DIR, PROJECT_DIR } from "../cli/plan/examples";
import { validateConfig } from "../components/clusterConfigValidation";
import { parse } from "yaml";
import { baseConfig, merge, REGION } from "./fixtures";
import { hostileString } from "./fuzz/arbitraries";
import { inputs, named, planWith } from "./planHelpers";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("determinism", () => {
  it("renders every example identically in another process, in reverse order", function () {
    this.timeout(120000);
    const script = `
      const { examples } = require("./cli/plan/examples");
      const { renderStackFiles } = require("./cli/plan/render");
      const { createHash } = require("crypto");
      (async () => {
        const out = {};
        for (const e of examples().reverse()) {
          const files = await renderStackFiles(e.file, e.name);
          for (const [name, text] of files) out[e.name + "/" + name] = createHash("sha256").update(text).digest("hex");
        }
        process.stdout.write(JSON.stringify(out));
      })();`;
    const result = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
      cwd: PROJECT_DIR,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(result.status, result.stderr).to.equal(0);
    const hashes = JSON.parse(result.stdout) as Record<string, string>;
    const golden = Object.fromEntries(
      examples().flatMap((e) =>
        filesUnder(join(GOLDEN_DIR, e.name)).map((f) => [
          `${e.name}/${f.slice(join(GOLDEN_DIR, e.name).length + 1)}`,
          execFileSync("sha256sum", [f], { encoding: "utf8" }).split(" ")[0],
        ]),
      ),
    );
    expect(hashes).to.deep.equal(golden);
  });
});

describe("secret hygiene", () => {
  it("no private key, token or credential appears in plaintext in any render", () => {
    for (const example of examples()) {
      for (const file of filesUnder(join(GOLDEN_DIR, example.name))) {
        const text = readFileSync(file, "utf8");
        expect(text, file).not.to.match(/BEGIN (RSA |EC )?PRIVATE KEY/);
        // A kubeconfig's key with a value (the worker's bootstrap names the field beside a shell variable) or a
        // bootstrap token.
        expect(text, file).not.to.match(/client-key-data:\s*[A-Za-z0-9+/=]{16}|[a-z0-9]{6}\.[a-z0-9]{16}/);
      }
      const outputs = JSON.parse(readFileSync(join(GOLDEN_DIR, example.name, "outputs.json"), "utf8"));
      // No admin credential is an output at all (npm run kubeconfig makes 15-minute tokens).
      expect(outputs, example.name).not.to.have.property("kubeconfig");
    }
  });
});

describe("hostile values", () => {
  it("shell quoting gives back exactly the value, whatever it holds", () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        fc.pre(!value.includes("\0"));
        expect(execFileSync("bash", ["-c", `printf %s ${shellQuote(value)}`], { encoding: "utf8" })).to.equal(value);
      }),
      { numRuns: 150 },
    );
  });

  it("extraConfig values with quotes, newlines, $() and YAML specials reach cilium-config intact", async () => {
    const values = {
      "debug-verbose": '"; rm -rf / #',
      "monitor-aggregation": "$(reboot)\n`id`",
      "bpf-lb-algorithm": "- [x]\n{y: z}: *a |",
    };
    const plan = await planWith(
      Object.fromEntries(Object.entries(values).map(([k, v]) => [`networking.cilium.extraConfig.${k}`, v])),
    );
    const data = inputs(named(plan, "kubernetes:core/v1:ConfigMap", "cilium-configmap-cilium-config")).data;
    expect(data).to.include(values);
    const { spec } = validateConfig(merge(baseConfig(), { networking: { cilium: { extraConfig: values } } }), REGION);
    const objects = renderCiliumManifests(spec, "api.example.test");
    const yaml = (await import("yaml")).stringify(objects.foundation.find((o) => o.kind === "ConfigMap"));
    expect(parse(yaml).data).to.include(values);
  });

  it("cloud labels outside AWS's tag alphabet are rejected before they reach any resource", () => {
    const { errors } = validateConfig(merge(baseConfig(), { cloudLabels: { team: "a\nb", "x$(id)": "y" } }), REGION);
    expect(errors.map((e) => e.field)).to.have.members(['cloudLabels["x$(id)"]', "cloudLabels.team"]);
  });

  it("user data stays valid bash and carries no config value unquoted", () => {
    const { spec } = validateConfig(
      merge(baseConfig(), { networking: { cilium: { extraConfig: { "debug-verbose": "$(reboot)" } } } }),
      REGION,
    );
    for (const group of instanceGroups(spec)) {
      const text = renderUserData(
        bootstrapConfig(spec, group, {
          internal: "api'$(reboot)'.example.test",
          public: "api.example.com",
          caParameter: "/cluster-ca",
        }),
      );
      expect(spawnSync("bash", ["-n"], { input: text }).status).to.equal(0);
      expect(text).to.contain(`API_ENDPOINT='api'\\''$(reboot)'\\''.example.test'`);
      expect(text).not.to.contain("debug-verbose");
    }
  });
});

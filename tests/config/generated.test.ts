// Pulumi.yaml's config block and docs/cluster-config.md are generated from the schema, docs/cilium.md's
// differences from the chart from the parity test's list, and the features' keys from their entries;
// stale files fail.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { parse } from "yaml";
import { devStackKeys, PROJECT_DIR } from "../../cli/plan/examples";
import { runPlan } from "../../cli/plan/run";
import { loadStackConfig, setPath } from "../../cli/plan/stackConfig";
import {
  renderAwsAddonDifferences,
  renderCiliumDifferences,
  withDifferences,
} from "../../devtools/codegen/chartDifferencesDoc";
import { renderConfigDoc } from "../../devtools/codegen/configDoc";
import { renderFeatureKeysModule } from "../../devtools/codegen/featureKeysModule";
import { renderPulumiYaml } from "../../devtools/codegen/pulumiYaml";
import { DEFAULT_KUBERNETES_VERSION } from "../../catalogs/ciliumVersions";
import { CONFIG_TREE } from "../../config/schema";

const read = (file: string) => readFileSync(join(PROJECT_DIR, file), "utf8");

describe("generated files (npm run generate)", () => {
  it("Pulumi.yaml is up to date", () => {
    expect(read("Pulumi.yaml"), "run npm run generate").to.equal(renderPulumiYaml());
  });

  it("docs/cluster-config.md is up to date", () => {
    expect(read("docs/cluster-config.md"), "run npm run generate").to.equal(renderConfigDoc(devStackKeys()));
  });

  it("config/featureKeys.ts holds every feature's own keys as its entry declares them", () => {
    expect(read("config/featureKeys.ts"), "run npm run generate").to.equal(renderFeatureKeysModule());
  });

  it("docs/cilium.md lists every difference from Cilium's chart the parity test allows, with its reason", () => {
    const doc = read("docs/cilium.md");
    expect(doc, "run npm run generate").to.equal(withDifferences(doc, "docs/cilium.md", renderCiliumDifferences()));
    expect(doc).to.contain(renderCiliumDifferences());
    expect(renderCiliumDifferences()).to.contain("`PodDisruptionBudget/cilium-operator`: Node drains evict");
  });

  it("docs/aws-addons.md lists every difference from their charts the AWS add-ons' parity test allows", () => {
    const doc = read("docs/aws-addons.md");
    expect(doc, "run npm run generate").to.equal(
      withDifferences(doc, "docs/aws-addons.md", renderAwsAddonDifferences()),
    );
    expect(doc).to.contain("`ClusterRole*/ebs*snapshotter*`: No snapshots");
  });

  it("docs/cluster-config.md's every Set line runs as printed, and leaves the dev stack valid", async () => {
    const lines = [...read("docs/cluster-config.md").matchAll(/^- Set: `(.*)`$/gm)].map((m) => m[1]);
    expect(lines.length).to.be.greaterThan(30);
    const config = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml"));
    for (const line of lines) {
      const set = /^pulumi config set --path '([^']+)'( --type string)? '([^']*)'$/.exec(line);
      expect(set, line).to.not.equal(null);
      setPath(config, set![1], set![3], set![2] ? "string" : undefined);
    }
    const plan = await runPlan(config, "dev");
    expect(plan.errors ?? [], JSON.stringify(plan.errors)).to.deep.equal([]);
  });

  it("Pulumi.yaml declares every top-level key with a type and a description", () => {
    const config = parse(read("Pulumi.yaml")).config as Record<
      string,
      { type: string; description: string; default?: unknown }
    >;
    expect(Object.keys(config)).to.deep.equal(Object.keys(CONFIG_TREE));
    for (const [key, decl] of Object.entries(config)) {
      expect(decl.type, key).to.be.oneOf(["string", "integer", "boolean", "array", "object"]);
      expect(decl.description, key).to.have.length.greaterThan(10);
    }
    expect(config.clusterName).not.to.have.property("default");
    expect(config.kubernetesVersion.default).to.equal(DEFAULT_KUBERNETES_VERSION);
  });
});

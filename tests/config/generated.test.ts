// Pulumi.yaml's config block and docs/cluster-config.md are generated from the schema; stale files fail.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { parse } from "yaml";
import { PROJECT_DIR } from "../../plan/examples";
import { renderConfigDoc } from "../../config/generate/configDoc";
import { renderPulumiYaml } from "../../config/generate/pulumiYaml";
import { DEFAULT_KUBERNETES_VERSION } from "../../catalogs/ciliumVersions";
import { CONFIG_TREE } from "../../config/schema";

const read = (file: string) => readFileSync(join(PROJECT_DIR, file), "utf8");

describe("generated files (npm run generate)", () => {
  it("Pulumi.yaml is up to date", () => {
    expect(read("Pulumi.yaml"), "run npm run generate").to.equal(renderPulumiYaml());
  });

  it("docs/cluster-config.md is up to date", () => {
    expect(read("docs/cluster-config.md"), "run npm run generate").to.equal(renderConfigDoc());
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

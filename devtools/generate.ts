/**
 * `npm run generate`: writes config/featureKeys.ts from the features' entries, then Pulumi.yaml and
 * docs/cluster-config.md from the spec schema (which takes that file in), the lists of the add-ons'
 * differences from their charts in docs/cilium.md and docs/aws-addons.md from the registry.
 */
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";
import { renderFeatureKeysModule } from "./codegen/featureKeysModule";

const root = join(__dirname, "..");

async function generate(): Promise<void> {
  // The features' keys first; the schema, and so everything after, is loaded only once they are written.
  writeFileSync(join(root, "config", "featureKeys.ts"), renderFeatureKeysModule());
  const { devStackKeys } = await import("../cli/plan/examples");
  const { renderAwsAddonDifferences, renderCiliumDifferences, withDifferences } =
    await import("./codegen/chartDifferencesDoc");
  const { renderConfigDoc } = await import("./codegen/configDoc");
  const { renderPulumiYaml } = await import("./codegen/pulumiYaml");
  writeFileSync(join(root, "Pulumi.yaml"), renderPulumiYaml());
  writeFileSync(join(root, "docs", "cluster-config.md"), renderConfigDoc(devStackKeys()));
  for (const [file, body] of [
    ["docs/cilium.md", renderCiliumDifferences()],
    ["docs/aws-addons.md", renderAwsAddonDifferences()],
  ]) {
    const path = join(root, file);
    writeFileSync(path, withDifferences(readFileSync(path, "utf8"), file, body));
  }
  console.log(
    "wrote config/featureKeys.ts, Pulumi.yaml, docs/cluster-config.md, the chart differences in " +
      "docs/cilium.md and docs/aws-addons.md",
  );
}

generate().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

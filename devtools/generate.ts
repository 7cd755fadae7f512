/**
 * `npm run generate`: writes Pulumi.yaml and docs/cluster-config.md from the spec schema, the lists of the
 * add-ons' differences from their charts in docs/cilium.md and docs/aws-addons.md from the registry, and
 * config/ciliumManagedKeys.ts from the Cilium renderers.
 */
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";
import { devStackKeys } from "../cli/plan/examples";
import { renderAwsAddonDifferences, renderCiliumDifferences, withDifferences } from "./codegen/chartDifferencesDoc";
import { renderConfigDoc } from "./codegen/configDoc";
import { renderManagedKeysModule } from "./codegen/managedKeysModule";
import { renderPulumiYaml } from "./codegen/pulumiYaml";

const root = join(__dirname, "..");
writeFileSync(join(root, "Pulumi.yaml"), renderPulumiYaml());
writeFileSync(join(root, "docs", "cluster-config.md"), renderConfigDoc(devStackKeys()));
for (const [file, body] of [
  ["docs/cilium.md", renderCiliumDifferences()],
  ["docs/aws-addons.md", renderAwsAddonDifferences()],
]) {
  const path = join(root, file);
  writeFileSync(path, withDifferences(readFileSync(path, "utf8"), file, body));
}
writeFileSync(join(root, "config", "ciliumManagedKeys.ts"), renderManagedKeysModule());
console.log(
  "wrote Pulumi.yaml, docs/cluster-config.md, the chart differences in docs/cilium.md and docs/aws-addons.md, and config/ciliumManagedKeys.ts",
);

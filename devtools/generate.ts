/**
 * `npm run generate`: writes Pulumi.yaml and docs/cluster-config.md from the spec schema, docs/cilium.md's
 * list of differences from Cilium's chart from components/cilium/chartDifferences.ts, and
 * config/ciliumManagedKeys.ts from the Cilium renderers.
 */
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";
import { devStackKeys } from "../cli/plan/examples";
import { withChartDifferences } from "./codegen/chartDifferencesDoc";
import { renderConfigDoc } from "./codegen/configDoc";
import { renderManagedKeysModule } from "./codegen/managedKeysModule";
import { renderPulumiYaml } from "./codegen/pulumiYaml";

const root = join(__dirname, "..");
writeFileSync(join(root, "Pulumi.yaml"), renderPulumiYaml());
writeFileSync(join(root, "docs", "cluster-config.md"), renderConfigDoc(devStackKeys()));
const ciliumDoc = join(root, "docs", "cilium.md");
writeFileSync(ciliumDoc, withChartDifferences(readFileSync(ciliumDoc, "utf8")));
writeFileSync(join(root, "config", "ciliumManagedKeys.ts"), renderManagedKeysModule());
console.log(
  "wrote Pulumi.yaml, docs/cluster-config.md, docs/cilium.md's differences from the chart and config/ciliumManagedKeys.ts",
);

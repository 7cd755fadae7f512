/** `npm run generate`: writes Pulumi.yaml and docs/cluster-config.md from the spec schema. */
import { writeFileSync } from "fs";
import { join } from "path";
import { devStackKeys } from "../cli/plan/examples";
import { renderConfigDoc } from "./codegen/configDoc";
import { renderPulumiYaml } from "./codegen/pulumiYaml";

const root = join(__dirname, "..");
writeFileSync(join(root, "Pulumi.yaml"), renderPulumiYaml());
writeFileSync(join(root, "docs", "cluster-config.md"), renderConfigDoc(devStackKeys()));
console.log("wrote Pulumi.yaml and docs/cluster-config.md");

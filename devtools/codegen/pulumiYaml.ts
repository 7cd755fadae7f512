/** Renders Pulumi.yaml, whose `config:` block declares every project key from the schema. */
import { stringify } from "yaml";
import { NODE_ARGS } from "../../cli/nodeArgs";
import { PROJECT } from "../../config/read";
import { CONFIG_TREE } from "../../config/schema";
import type { AnyField } from "../../config/schemaTypes";
import { defaultValue, pulumiType } from "./documentedDefaults";

function declaration(field: AnyField): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: pulumiType(field), description: field.description.replace(/`/g, "") };
  if (field.kind === "array") entry.items = { type: pulumiType(field.items) };
  // Objects and maps default to `{}`: the program fills every key the user leaves out, so only keys
  // without a usable default (clusterName, network.availabilityZones) are reported missing.
  if (field.kind === "object" || field.kind === "map") entry.default = {};
  else if (field.kind === "array" && field.default) entry.default = defaultValue(field);
  else if (field.kind !== "array" && field.default !== undefined) entry.default = field.default;
  return entry;
}

export function renderPulumiYaml(): string {
  const project = {
    name: PROJECT,
    description: "A kOps-style self-managed Kubernetes cluster on AWS with Cilium as the CNI",
    // The CLI runs index.ts through ts-node, which tsconfig.json has transpile with swc and type-check
    // nothing (`npm test` does): an edit is what the next preview runs, with no build step. package.json's
    // `main` is the library's compiled entry, so the program's is named here. Node starts with the options
    // the plan starts with (cli/nodeArgs.ts).
    runtime: { name: "nodejs", options: { typescript: true, nodeargs: NODE_ARGS.join(" ") } },
    main: "index.ts",
    config: Object.fromEntries(Object.entries(CONFIG_TREE).map(([key, field]) => [key, declaration(field)])),
  };
  const header =
    "# Generated from config/schema.ts by `npm run generate`; edit the schema (a feature's own keys: its entry), not this file.\n";
  return header + stringify(project, { lineWidth: 0 });
}

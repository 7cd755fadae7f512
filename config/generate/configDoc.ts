/** Renders docs/cluster-config.md: every config key with its type, default, allowed values and rules. */
import { CONFIG_TREE } from "../schema";
import type { AnyField } from "../schemaTypes";
import { defaultValue } from "./documentedDefaults";

interface Row {
  path: string;
  field: AnyField;
}

function rows(fields: Record<string, AnyField>, prefix: string): Row[] {
  return Object.entries(fields).flatMap(([key, field]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const own: Row = { path, field };
    if (field.kind === "object") return [own, ...rows(field.fields, path)];
    if (field.kind === "array" && field.items.kind === "object")
      return [own, ...rows(field.items.fields, `${path}[i]`)];
    return [own];
  });
}

function typeName(field: AnyField): string {
  if (field.kind === "array") return `list of ${typeName(field.items)}`;
  if (field.kind === "map") return "map of string";
  return field.kind;
}

function defaultText(field: AnyField): string {
  if (field.kind === "string" && field.defaultText) return field.defaultText;
  if (field.kind === "object") return "";
  if ((field.kind === "string" || field.kind === "array") && field.required) return "(required)";
  const value = defaultValue(field);
  return value === undefined ? "" : `\`${JSON.stringify(value)}\``;
}

function section({ path, field }: Row): string {
  const lines = [`### \`${path}\``, "", field.description, "", `- Type: ${typeName(field)}`];
  const def = defaultText(field);
  if (def) lines.push(`- Default: ${def}`);
  if (field.kind === "string" && field.enum)
    lines.push(`- Allowed values: ${field.enum.map((v) => `\`${JSON.stringify(v)}\``).join(", ")}`);
  if (field.kind === "integer" && (field.minimum !== undefined || field.maximum !== undefined)) {
    lines.push(`- Range: ${field.minimum ?? ""} to ${field.maximum ?? ""}`);
  }
  if (field.kind === "array" && (field.minItems !== undefined || field.maxItems !== undefined)) {
    lines.push(`- Items: ${field.minItems ?? 0} to ${field.maxItems ?? "any number"}`);
  }
  for (const rule of field.rules ?? []) lines.push(`- Rule: ${rule}`);
  if (!path.includes("[i]")) lines.push(`- Set: \`pulumi config set --path ${path.replace(/\[i\]/g, "[0]")} <value>\``);
  return lines.join("\n");
}

export function renderConfigDoc(): string {
  const all = rows(CONFIG_TREE, "");
  return [
    "<!-- Generated from config/schema.ts by `npm run generate`; edit the schema, not this file. -->",
    "# Cluster configuration",
    "",
    "Every key of the `cilium-cluster` stack config. Set one with `pulumi config set --path <key> <value>`;",
    "`true`/`false` and integers given with `--path` are stored as booleans and numbers. The stack's region is",
    "`aws:region` (required). The program validates the whole config before it declares any resource and",
    "lists every problem at once, one line per key, in the form",
    '`networking.cilium.ipam: Unsupported value: "foo": supported values: "", "crd", "eni"`.',
    "",
    "## Keys",
    "",
    ...all.map((r) => `- [\`${r.path}\`](#${r.path.replace(/[^a-zA-Z0-9-]/g, "").toLowerCase()})`),
    "",
    ...all.map((r) => section(r) + "\n"),
  ].join("\n");
}

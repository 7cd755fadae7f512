/** Renders docs/cluster-config.md: every config key with its type, default, allowed values and rules. */
import { CONFIG_TREE } from "../../config/schema";
import type { AnyField } from "../../config/schemaTypes";
import { FIXED_SETTINGS } from "../../config/validation/fixedOnceDeployed";
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

type Example = Record<string, unknown>;
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** What `pulumi config set --path` would turn into a boolean or a number. */
const coercible = (text: string) => /^(true|false|-?(0|[1-9]\d*))$/.test(text);

/** The value at a documented path (`a.b[i].c`, item 0) in the example stack's config. */
function valueAt(example: Example, path: string): unknown {
  let node: unknown = example;
  for (const key of path.replace(/\[i\]/g, ".0").split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * A `pulumi config set` that runs as printed: the example stack's own value of the key, else its default.
 * Objects are set key by key, lists item by item, maps entry by entry; a key with neither gets no line.
 */
function setLine(path: string, field: AnyField, example: Example): string | undefined {
  const at = path.replace(/\[i\]/g, "[0]");
  const given = valueAt(example, path);
  const scalar = (p: string, value: unknown, string: boolean) => {
    const text = String(value);
    const type = string && coercible(text) ? " --type string" : "";
    return `pulumi config set --path ${quote(p)}${type} ${quote(text)}`;
  };
  if (field.kind === "object") return undefined;
  if (field.kind === "map") {
    const entry = Object.entries((given ?? field.example ?? {}) as Record<string, string>)[0];
    return entry && scalar(`${at}.${entry[0]}`, entry[1], true);
  }
  if (field.kind === "array") {
    if (field.items.kind === "object") return undefined;
    const first = ((given ?? defaultValue(field) ?? []) as unknown[])[0];
    return first === undefined ? undefined : scalar(`${at}[0]`, first, field.items.kind === "string");
  }
  const value = given ?? defaultValue(field);
  return value === undefined ? undefined : scalar(at, value, field.kind === "string");
}

function section({ path, field }: Row, example: Example): string {
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
  const fixed = FIXED_SETTINGS.find((f) => f.field === path);
  if (fixed)
    lines.push(`- Fixed once the stack is deployed: ${fixed.reason}; a cluster with another value is a new stack`);
  const set = setLine(path, field, example);
  if (set) lines.push(`- Set: \`${set}\``);
  return lines.join("\n");
}

/** EXAMPLE: the project's keys of a stack's config (the dev stack's), whose values the Set lines use. */
export function renderConfigDoc(example: Example): string {
  const all = rows(CONFIG_TREE, "");
  return [
    "<!-- Generated from config/schema.ts by `npm run generate`; edit the schema (a feature's own keys: its entry), not this file. -->",
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
    ...all.map((r) => section(r, example) + "\n"),
  ].join("\n");
}

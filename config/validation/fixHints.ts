/**
 * The command that fixes a field error, run as printed: with the value validation suggests where it knows
 * one, else with `<value>` (and `<key>`) for the user to fill in. It follows what
 * `pulumi config set --path` does: `true`/`false` and integers become booleans and numbers unless
 * `--type string` says otherwise; a list is addressed item by item (`nodeGroups[0].name`); a key that must
 * go is removed with `pulumi config rm --path`.
 */
import { CONFIG_TREE } from "../schema";
import type { AnyField } from "../schemaTypes";
import type { FieldError } from "./fieldErrors";

type Segment = string | number;

/** `a.b[0]["c.d"]` into segments (the paths validation writes are always well-formed). */
function segmentsOf(path: string): Segment[] {
  return [...path.matchAll(/\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|([^.[\]]+)/g)].map((m) =>
    m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2] !== undefined ? Number(m[2]) : m[3],
  );
}

/** The schema node a config path addresses, if any. */
export function fieldAt(path: string): AnyField | undefined {
  let fields: Record<string, AnyField> | undefined = CONFIG_TREE;
  let field: AnyField | undefined;
  for (const segment of segmentsOf(path)) {
    if (typeof segment === "number") {
      if (field?.kind !== "array") return undefined;
      field = field.items;
    } else if (field?.kind === "map") {
      return { kind: "string", description: "" };
    } else {
      field = fields?.[segment];
    }
    fields = field?.kind === "object" ? field.fields : undefined;
    if (!field) return undefined;
  }
  return field;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
const looksCoerced = (v: unknown) => typeof v === "number" || typeof v === "boolean";
/** What `pulumi config set --path` turns into a boolean or a number. */
const looksCoercible = (text: string) => /^(true|false|-?(0|[1-9]\d*))$/.test(text);

/** A key of another namespace (`aws:region`), set without `--path`; a `:` inside a path's key is not one. */
const namespacedKey = (path: string): boolean => /^[^.[\]":]+:[^.[\]"]+$/.test(path);

/** `pulumi config set --path` of a known value; a string the CLI would coerce keeps its type with `--type string`. */
function setSuggested(path: string, value: string): string {
  if (namespacedKey(path)) return `pulumi config set ${path} ${quote(value)}`;
  const type = fieldAt(path)?.kind === "string" && looksCoercible(value) ? " --type string" : "";
  return `pulumi config set --path ${quote(path)}${type} ${quote(value)}`;
}

export function fixCommand(e: FieldError): string {
  if (e.excess) return e.excess.map((p) => `pulumi config rm --path ${quote(p)}`).join(" && ");
  if (e.suggested) {
    // A key that must go while a value is known: the key is misspelt, and its value moves to the one meant.
    const set = setSuggested(e.suggested.at ?? e.field, e.suggested.value);
    const rm = namespacedKey(e.field) ? `pulumi config rm ${e.field}` : `pulumi config rm --path ${quote(e.field)}`;
    return e.remove ? `${rm} && ${set}` : set;
  }
  if (namespacedKey(e.field)) return e.remove ? `pulumi config rm ${e.field}` : `pulumi config set ${e.field} <value>`;
  const path = quote(e.field);
  if (e.remove) return `pulumi config rm --path ${path}`;
  // One value allowed (`cloudProvider: aws`): the fix is that value, with nothing left to fill in.
  if (e.type === "Unsupported value" && e.supported?.length === 1) {
    return `pulumi config set --path ${path} ${quote(e.supported[0])}`;
  }
  const field = fieldAt(e.field);
  if (field?.kind === "array") {
    const count = /^(\d+) items$/.exec(String(e.badValue));
    if (count && field.maxItems !== undefined) {
      const extra = Array.from({ length: Number(count[1]) - field.maxItems }, (_, i) => Number(count[1]) - 1 - i);
      return extra.map((i) => `pulumi config rm --path ${quote(`${e.field}[${i}]`)}`).join(" && ");
    }
    const item = field.items.kind === "object" ? `${e.field}[0].<key>` : `${e.field}[0]`;
    const first = `pulumi config set --path ${quote(item)} <value>`;
    return e.badValue !== undefined && !Array.isArray(e.badValue)
      ? `pulumi config rm --path ${path} && ${first}`
      : first;
  }
  if (field?.kind === "object" || field?.kind === "map") {
    const wrongType = e.badValue !== undefined && (typeof e.badValue !== "object" || Array.isArray(e.badValue));
    const type = field.kind === "map" ? " --type string" : "";
    const set = `pulumi config set --path ${quote(`${e.field}.<key>`)}${type} <value>`;
    return wrongType ? `pulumi config rm --path ${path} && ${set}` : set;
  }
  if (field?.kind === "string") {
    // A value the CLI coerced to a number or boolean is set again as the string it was meant to be.
    if (looksCoerced(e.badValue)) {
      return `pulumi config set --path ${path} --type string ${quote(String(e.badValue))}`;
    }
    const mapValue =
      !CONFIG_TREE[e.field] && fieldAt(e.field.replace(/(\.[^.[\]]+|\["(?:[^"\\]|\\.)*"\])$/, ""))?.kind === "map";
    if (mapValue) return `pulumi config set --path ${path} --type string <value>`;
  }
  return `pulumi config set --path ${path} <value>`;
}

/**
 * The rules across keys that the schema holds as data (`requires` of a boolean key, schemaTypes.ts): while
 * the key is on, each other key it names must hold its value. Pure: spec and schema in, field errors out.
 */
import type { AnyField } from "../schemaTypes";
import type { ClusterSpec } from "../types";
import { FieldError, forbidden, withSuggestion } from "./fieldErrors";

/** The value at a dotted config path of the spec (undefined where a step is missing). */
function valueAt(spec: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>(
      (node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
      spec,
    );
}

export function requirementErrors(spec: ClusterSpec, tree: Record<string, AnyField>, prefix = ""): FieldError[] {
  return Object.entries(tree).flatMap(([key, field]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (field.kind === "object") return requirementErrors(spec, field.fields, path);
    if (field.kind !== "boolean" || !field.requires || valueAt(spec, path) !== true) return [];
    return field.requires
      .filter((r) => valueAt(spec, r.path) !== r.equals)
      .map((r) =>
        r.fix === "turnOff"
          ? withSuggestion(forbidden(path, r.detail), "false")
          : withSuggestion(forbidden(path, r.detail), String(r.equals), r.path),
      );
  });
}

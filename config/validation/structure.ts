/**
 * Schema-driven checks of the raw config: types, unknown keys, allowed values, ranges and required keys.
 * Returns the errors and a copy of the input with every ill-typed value removed, so that defaults and the
 * semantic rules can run on the rest and all problems are reported at once.
 */
import type { AnyField } from "../schemaTypes";
import { closestKey } from "./closestKey";
import {
  child,
  FieldError,
  forbidden,
  index,
  invalid,
  mustRemove,
  notSupported,
  required,
  withSuggestion,
} from "./fieldErrors";

type Raw = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

export interface StructureResult {
  errors: FieldError[];
  /** The input without the values that failed a type check (they fall back to defaults). */
  clean: Raw;
}

export function checkStructure(raw: Raw, schema: Record<string, AnyField>): StructureResult {
  const errors: FieldError[] = [];
  const clean = checkFields(raw, schema, "", errors);
  return { errors, clean };
}

function checkFields(raw: Raw, fields: Record<string, AnyField>, path: string, errors: FieldError[]): Raw {
  const clean: Raw = {};
  const known = Object.keys(fields);
  for (const key of Object.keys(raw)) {
    if (!(key in fields)) {
      const suggestion = closestKey(key, known);
      const hint = suggestion ? `; did you mean ${JSON.stringify(child(path, suggestion))}?` : "";
      const error = mustRemove(forbidden(child(path, key), `unknown key${hint} (known keys: ${known.join(", ")})`));
      // A scalar under a misspelt key moves to the scalar key it was meant to be; a structure is set again.
      const value = raw[key];
      const scalars = ["string", "integer", "boolean"];
      const movable =
        suggestion &&
        scalars.includes(fields[suggestion].kind) &&
        ["string", "number", "boolean"].includes(typeof value);
      errors.push(movable ? withSuggestion(error, String(value), child(path, suggestion)) : error);
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    const value = checkValue(raw[key], field, child(path, key), errors, raw);
    if (value !== undefined) clean[key] = value;
  }
  return clean;
}

/**
 * Returns the value when it is well-typed (objects and arrays cleaned recursively), else undefined. `siblings`:
 * the object the value is a key of, which an integer's `atLeast` reads.
 */
function checkValue(value: unknown, field: AnyField, path: string, errors: FieldError[], siblings: Raw = {}): unknown {
  if ((value === undefined || value === null) && field.kind === "object") {
    // An absent object still has to report the required keys below it.
    return checkFields({}, field.fields, path, errors);
  }
  if (value === undefined || value === null) {
    const isRequired = (field.kind === "string" || field.kind === "array") && field.required;
    if (isRequired) errors.push(required(path, "this key has no default"));
    return undefined;
  }
  switch (field.kind) {
    case "string":
      if (typeof value !== "string") return typeError(errors, path, value, stringExpected(value));
      if (field.enum && !field.enum.includes(value)) {
        const closest = closestKey(value, field.enum);
        const e = notSupported(path, value, field.enum);
        errors.push(closest === undefined ? e : withSuggestion(e, closest));
        return undefined;
      }
      if (field.required && value === "") {
        errors.push(required(path, "must not be empty"));
        return undefined;
      }
      return value;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return typeError(errors, path, value, "an integer");
      if (
        (field.minimum !== undefined && value < field.minimum) ||
        (field.maximum !== undefined && value > field.maximum)
      ) {
        const e = invalid(path, value, `must be between ${field.minimum ?? "-∞"} and ${field.maximum ?? "∞"}`);
        const nearest = Math.min(Math.max(value, field.minimum ?? value), field.maximum ?? value);
        // No lower than the sibling it must not fall below, where that one is itself in range.
        const floor = field.atLeast === undefined ? undefined : siblings[field.atLeast];
        const fitting =
          typeof floor === "number" && Number.isInteger(floor) && floor > nearest && floor <= (field.maximum ?? floor)
            ? floor
            : nearest;
        errors.push(withSuggestion(e, String(fitting)));
        return undefined;
      }
      return value;
    case "boolean":
      return typeof value === "boolean" ? value : typeError(errors, path, value, "a boolean (true or false)");
    case "map": {
      if (!isPlainObject(value)) return typeError(errors, path, value, "a map of strings");
      const clean: Record<string, string> = {};
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === "string") clean[k] = v;
        else typeError(errors, child(path, k), v, stringExpected(v));
      }
      return clean;
    }
    case "array": {
      if (!Array.isArray(value)) return typeError(errors, path, value, "a list");
      if (field.minItems !== undefined && value.length < field.minItems) {
        errors.push(invalid(path, value, `must have at least ${field.minItems} item(s)`));
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        errors.push(invalid(path, `${value.length} items`, `must have at most ${field.maxItems} items`));
        return undefined;
      }
      // Array.from visits holes too (as undefined), so no item escapes the checks.
      const items = Array.from(value, (item, i) => checkValue(item, field.items, index(path, i), errors));
      return items.some((item) => item === undefined) ? undefined : items;
    }
    case "object":
      if (!isPlainObject(value)) return typeError(errors, path, value, "an object");
      return checkFields(value, field.fields, path, errors);
  }
}

/**
 * YAML reads an unquoted `1234` or `true` as a number or boolean, and so does `pulumi config set --path`
 * without `--type string`, where the user meant the text.
 */
function stringExpected(value: unknown): string {
  const type = typeof value;
  return type === "number" || type === "boolean"
    ? `a string; ${String(value)} was read as a ${type}: quote it in the stack file, or set it with --type string`
    : "a string";
}

function typeError(errors: FieldError[], path: string, value: unknown, expected: string): undefined {
  errors.push(invalid(path, value, `must be ${expected}`));
  return undefined;
}

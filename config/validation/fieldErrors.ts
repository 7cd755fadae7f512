/**
 * Field errors in the format of Kubernetes apimachinery (`k8s.io/apimachinery/pkg/util/validation/field`),
 * addressed by the path a user passes to `pulumi config set --path`.
 */

export type FieldErrorType = "Required value" | "Invalid value" | "Unsupported value" | "Forbidden" | "Too many";

export interface FieldError {
  type: FieldErrorType;
  /** Config path, e.g. `networking.cilium.ipam` or `nodeGroups[1].name`. */
  field: string;
  /** The offending value, for `Invalid value` and `Unsupported value`. */
  badValue?: unknown;
  detail: string;
  /** Values that would be accepted, for `Unsupported value`. */
  supported?: readonly string[];
  /** The key must go (`pulumi config rm`), not take another value. */
  remove?: boolean;
  /**
   * A value known to fix the error, which the fix hint sets instead of a `<value>` placeholder: on the
   * error's own field, or on `at` when the fix is elsewhere (a zone is acknowledged in another list).
   */
  suggested?: { value: string; at?: string };
  /** For `Too many`: the entries whose removal fixes it, in the order to remove them. */
  excess?: readonly string[];
  /** Other keys whose values the rule read: an error of theirs (their value replaced by its default) drops it. */
  reads?: readonly string[];
}

/** A path segment: object keys that are plain identifiers join with `.`, others use `["key"]`. */
export function child(path: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

export const required = (field: string, detail = ""): FieldError => ({ type: "Required value", field, detail });

export const invalid = (field: string, badValue: unknown, detail: string): FieldError => ({
  type: "Invalid value",
  field,
  badValue,
  detail,
});

export const notSupported = (field: string, badValue: unknown, supported: readonly string[]): FieldError => ({
  type: "Unsupported value",
  field,
  badValue,
  supported,
  detail: `supported values: ${supported.map((v) => JSON.stringify(v)).join(", ")}`,
});

export const forbidden = (field: string, detail: string): FieldError => ({ type: "Forbidden", field, detail });

/** apimachinery's `TooMany`: `actual` entries where at most `max` fit; `excess` are the entries to remove. */
export const tooMany = (
  field: string,
  actual: number,
  max: number,
  why: string,
  excess: readonly string[],
): FieldError => ({
  type: "Too many",
  field,
  badValue: actual,
  detail: `must have at most ${max} items: ${why}`,
  excess,
});

/** A key that must not be set at all: its fix is `pulumi config rm`. */
export const mustRemove = (e: FieldError): FieldError => ({ ...e, remove: true });

export const withSuggestion = (e: FieldError, value: string, at?: string): FieldError => ({
  ...e,
  suggested: at === undefined ? { value } : { value, at },
});

/** apimachinery's rendering of a bad value: strings quoted, numbers and booleans bare, the rest as JSON. */
function formatValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  return JSON.stringify(value);
}

/** One line, as `field.Error.Error()` prints it. */
export function formatFieldError(e: FieldError): string {
  const body =
    e.type === "Invalid value" || e.type === "Unsupported value" || e.type === "Too many"
      ? `${e.type}: ${formatValue(e.badValue)}`
      : e.type;
  return e.detail ? `${e.field}: ${body}: ${e.detail}` : `${e.field}: ${body}`;
}

/** `type::field`, the form kOps's validation tests compare. */
export const errorKey = (e: FieldError): string => `${e.type}::${e.field}`;

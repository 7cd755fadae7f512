/**
 * The shape of the schema facts kept for every config key: type, default, allowed values, description
 * and the validation rules in words; and `ValueOf`, the spec type a schema node describes, so that each key
 * is written once (types.ts).
 */

interface FieldCommon {
  /** What the key does, for users (Pulumi.yaml and docs/cluster-config.md). */
  description: string;
  /** Validation rules beyond type and allowed values, in words, for the docs. */
  rules?: readonly string[];
}

export interface StringField<T extends string = string> extends FieldCommon {
  kind: "string";
  default?: T;
  /** Says how the default is derived when it depends on other keys. */
  defaultText?: string;
  required?: boolean;
  enum?: readonly T[];
}

export interface IntegerField extends FieldCommon {
  kind: "integer";
  default?: number;
  minimum?: number;
  maximum?: number;
  /** A sibling key this one must not fall below (`maxSize` of `minSize`): an out-of-range fix goes no lower. */
  atLeast?: string;
}

/**
 * A rule across keys, as data: while a boolean key is on, another key must hold a value. Validation checks
 * every one (validation/requirements.ts), so a feature brings its rules in its schema fragment.
 */
export interface Requirement {
  /** The other key, by its full config path. */
  path: string;
  equals: boolean | string;
  /** The error's detail: what is required, and why where it is not obvious. */
  detail: string;
  /** The fix the error prints: turn this key off, or give the other key its required value. */
  fix: "turnOff" | "require";
}

export interface BooleanField extends FieldCommon {
  kind: "boolean";
  default: boolean;
  requires?: readonly Requirement[];
}

/** A map of string to string (tags, extra config). */
export interface MapField extends FieldCommon {
  kind: "map";
  /** An entry for the docs' `Set:` line, where the dev stack sets none. */
  example?: Readonly<Record<string, string>>;
}

/** Any schema node, for code that walks the schema without caring which spec field it describes. */
export type AnyField =
  | StringField
  | IntegerField
  | BooleanField
  | MapField
  | {
      kind: "array";
      description: string;
      rules?: readonly string[];
      items: AnyField;
      default?: readonly unknown[];
      required?: boolean;
      minItems?: number;
      maxItems?: number;
    }
  | { kind: "object"; description: string; rules?: readonly string[]; fields: Record<string, AnyField> };

/** The value a schema node describes: an enum's union, an object's fields, an array of its items. */
export type ValueOf<F> = F extends { kind: "string"; enum: readonly (infer E)[] }
  ? E
  : F extends { kind: "string" }
    ? string
    : F extends { kind: "integer" }
      ? number
      : F extends { kind: "boolean" }
        ? boolean
        : F extends { kind: "map" }
          ? Record<string, string>
          : F extends { kind: "array"; items: infer Item }
            ? ValueOf<Item>[]
            : F extends { kind: "object"; fields: infer Fields }
              ? { -readonly [K in keyof Fields]: ValueOf<Fields[K]> }
              : never;

/**
 * What a user may write for a schema node: every key of an object may be left out, and takes its default
 * (validation reports a missing key that has none, with its config path).
 */
export type InputOf<F> = F extends { kind: "object"; fields: infer Fields }
  ? { -readonly [K in keyof Fields]?: InputOf<Fields[K]> }
  : F extends { kind: "array"; items: infer Item }
    ? InputOf<Item>[]
    : ValueOf<F>;

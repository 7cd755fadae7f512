/**
 * The shape of the schema facts kept for every config key: type, default, allowed values, description
 * and the validation rules in words. `FieldFor<T>` ties a schema node to the spec type it describes, so
 * the compiler rejects a schema that misses a spec field or describes one that does not exist.
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
}

export interface BooleanField extends FieldCommon {
  kind: "boolean";
  default: boolean;
}

/** A map of string to string (tags, extra config). */
export interface MapField extends FieldCommon {
  kind: "map";
}

export interface ArrayField<Item> extends FieldCommon {
  kind: "array";
  items: FieldFor<Item>;
  /** Default items; keys an item leaves out take the item schema's defaults. */
  default?: readonly Partial<Item>[];
  required?: boolean;
  minItems?: number;
  maxItems?: number;
}

export interface ObjectField<T> extends FieldCommon {
  kind: "object";
  fields: FieldsFor<T>;
}

export type FieldsFor<T> = { [K in keyof T]-?: FieldFor<T[K]> };

// Tuple-wrapped so a union such as `"" | "crd" | "eni"` maps to one StringField of that union.
export type FieldFor<T> = [T] extends [string]
  ? StringField<T>
  : [T] extends [number]
    ? IntegerField
    : [T] extends [boolean]
      ? BooleanField
      : [T] extends [readonly (infer Item)[]]
        ? ArrayField<Item>
        : string extends keyof T
          ? MapField
          : ObjectField<T>;

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

/** The default of a schema node as a user would write it, for generated files. */
import { withDefaults } from "../../config/defaults";
import type { AnyField } from "../../config/schemaTypes";

export function defaultValue(field: AnyField): unknown {
  switch (field.kind) {
    case "object":
      return Object.fromEntries(
        Object.entries(field.fields)
          .map(([k, f]) => [k, defaultValue(f)])
          .filter(([, v]) => v !== undefined),
      );
    case "map":
      return {};
    case "array":
      return field.default && withDefaults(undefined, field);
    default:
      return field.default;
  }
}

/** Schema kind → the type name Pulumi.yaml's config schema uses. */
export function pulumiType(field: AnyField): string {
  switch (field.kind) {
    case "map":
      return "object";
    default:
      return field.kind;
  }
}

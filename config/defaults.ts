/**
 * Fills every key the user left out with its default from the schema, and the defaults that depend on
 * another key (`networking.cilium.tunnel` follows `ipam`, `networking.cilium.version` follows
 * `kubernetesVersion`). Runs on structurally checked input.
 */
import { defaultCiliumVersion } from "../catalogs/ciliumVersions";
import { CONFIG_TREE } from "./schema";
import type { AnyField } from "./schemaTypes";
import type { ClusterSpec } from "./types";
import { eniMode } from "./eniMode";

type Raw = Record<string, unknown>;

/** `value` with every key it leaves out filled from the schema node `field` (recursively). */
export function withDefaults(value: unknown, field: AnyField): unknown {
  switch (field.kind) {
    case "object": {
      const raw = (value ?? {}) as Raw;
      return Object.fromEntries(Object.entries(field.fields).map(([k, f]) => [k, withDefaults(raw[k], f)]));
    }
    case "array": {
      const items = (value ?? field.default ?? []) as unknown[];
      return items.map((item) => withDefaults(item, field.items));
    }
    case "map":
      return { ...((value ?? {}) as Record<string, string>) };
    default:
      return value ?? field.default;
  }
}

/** The typed spec: config keys with defaults applied, plus the region from `aws:region`. */
export function applyDefaults(clean: Raw, region: string): ClusterSpec {
  const spec = withDefaults(clean, { kind: "object", description: "", fields: CONFIG_TREE }) as Omit<
    ClusterSpec,
    "region"
  >;
  const cilium = spec.networking.cilium;
  cilium.tunnel ??= eniMode(cilium) ? "disabled" : "vxlan";
  // Empty when no line supports kubernetesVersion: validation reports that on kubernetesVersion.
  cilium.version ??= defaultCiliumVersion(spec.kubernetesVersion) ?? "";
  return { ...spec, region };
}

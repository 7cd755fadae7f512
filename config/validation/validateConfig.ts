/**
 * Validation of the raw stack config: the structural checks, then defaults, then every semantic rule.
 * Pure: raw config in, typed spec and field errors out. All errors are returned at once.
 */
import { applyDefaults } from "../defaults";
import { CONFIG_TREE } from "../schema";
import type { ClusterSpec } from "../types";
import { validateCilium } from "./cilium";
import { validateCluster } from "./clusterIdentity";
import { validateExtraConfig } from "./extraConfig";
import { FieldError } from "./fieldErrors";
import { validateInstanceGroups } from "./nodeGroups";
import { validateNetwork } from "./network";
import { requirementErrors } from "./requirements";
import { checkStructure } from "./structure";

export interface ValidationResult {
  /** The defaulted spec; only meaningful when `errors` is empty. */
  spec: ClusterSpec;
  errors: FieldError[];
}

/** True when one path lies on the other's branch (`a` is `b`, or an ancestor or descendant of it). */
function related(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long === short || long.startsWith(`${short}.`) || long.startsWith(`${short}[`);
}

export function validateConfig(raw: Record<string, unknown>, region: string | undefined): ValidationResult {
  const structure = checkStructure(raw, CONFIG_TREE);
  const spec = applyDefaults(structure.clean, region ?? "");
  const semantic = [
    ...validateCluster(spec),
    ...validateNetwork(spec),
    ...validateCilium(spec),
    ...requirementErrors(spec, CONFIG_TREE),
    ...validateExtraConfig(spec),
    ...validateInstanceGroups(spec),
  ];
  // A value that failed its type check was replaced by its default; rules about that branch would
  // report on a value the user never wrote.
  const fresh = semantic.filter((e) => !structure.errors.some((s) => related(s.field, e.field)));
  return { spec, errors: [...structure.errors, ...fresh] };
}

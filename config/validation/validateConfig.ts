/**
 * Validation of the raw stack config: the structural checks, then defaults, then every semantic rule: the
 * core's (identity, network, node groups), the features' (given: each feature's rules live in its folder, and
 * config/ imports nothing of components/), and the rules across keys the schema holds as data. Pure: raw
 * config in, typed spec and field errors out. All errors are returned at once. The cluster's validation with
 * every feature's rules is components/clusterConfigValidation.ts.
 */
import { applyDefaults } from "../defaults";
import { CONFIG_TREE } from "../schema";
import type { ClusterSpec } from "../types";
import { validateCluster } from "./clusterIdentity";
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

/** A feature's rules that are code: spec in, its field errors out. */
export type FeatureRule = (spec: ClusterSpec) => FieldError[];

export function validateConfigWith(
  raw: Record<string, unknown>,
  region: string | undefined,
  featureRules: readonly FeatureRule[],
): ValidationResult {
  const structure = checkStructure(raw, CONFIG_TREE);
  const spec = applyDefaults(structure.clean, region ?? "");
  const semantic = [
    ...validateCluster(spec),
    ...validateNetwork(spec),
    ...featureRules.flatMap((rule) => rule(spec)),
    ...requirementErrors(spec, CONFIG_TREE),
    ...validateInstanceGroups(spec),
  ];
  // A value that failed its type check was replaced by its default; rules about that branch would
  // report on a value the user never wrote.
  const fresh = semantic.filter(
    (e) => !structure.errors.some((s) => [e.field, ...(e.reads ?? [])].some((f) => related(s.field, f))),
  );
  return { spec, errors: [...structure.errors, ...fresh] };
}

/**
 * The cluster's config validation: config/'s structure, defaults and core rules, with every feature's rules
 * (its entry's `config.rules`, in its folder) from the registry. Pure: raw config in, typed spec and every
 * field error out.
 */
import { validateConfigWith, type ValidationResult } from "../config/validation/validateConfig";
import { FEATURES } from "./features";

/** Every feature's rules that are code, in the registry's order. */
export const FEATURE_RULES = FEATURES.flatMap((feature) => feature.config?.rules ?? []);

export function validateConfig(raw: Record<string, unknown>, region: string | undefined): ValidationResult {
  return validateConfigWith(raw, region, FEATURE_RULES);
}

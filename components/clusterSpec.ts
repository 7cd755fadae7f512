/** Raw cluster config → validated, defaulted spec, every problem at once. */
import type { AppliedState } from "../config/appliedState";
import type { ClusterConfig, ClusterSpec } from "../config/types";
import { fixedSettingErrors } from "../config/validation/fixedOnceDeployed";
import { upgradeErrors } from "../config/validation/kubernetesUpgrade";
import { stackAwsErrors } from "../config/validation/stackAwsConfig";
import { misspeltNamespaceErrors } from "../config/validation/misspeltNamespaces";
import { validateConfig } from "./clusterConfigValidation";
import { ConfigValidationError } from "../config/validation/report";
import { PROJECT } from "../config/read";

/**
 * Validates a cluster's config; throws a ConfigValidationError listing every problem. `applied` is what the
 * cluster's last update applied (none for a new cluster): a kubernetesVersion that is a valid release is
 * also held to the upgrade rules (config/validation/kubernetesUpgrade.ts), and the settings fixed once the stack
 * is deployed to their applied values (config/validation/fixedOnceDeployed.ts). `flat` is Pulumi's flat config:
 * its `aws:` keys as the program's own AWS calls take them (config/validation/stackAwsConfig.ts), and keys
 * under a misspelt namespace (config/validation/misspeltNamespaces.ts).
 */
export function clusterSpec(
  config: ClusterConfig,
  region: string | undefined,
  applied: AppliedState = {},
  flat: Record<string, string> = {},
): ClusterSpec {
  const misspelt = misspeltNamespaceErrors(flat);
  // A key given under a misspelt namespace is not also reported missing: moving it is the one fix.
  const given = new Set(misspelt.map((e) => e.suggested?.at?.replace(`${PROJECT}:`, "")));
  const validation = validateConfig(config as Record<string, unknown>, region);
  const { spec } = validation;
  const errors = validation.errors.filter((e) => !(e.type === "Required value" && given.has(e.field)));
  const valid = (field: string) => !errors.some((e) => e.field === field);
  const all = [
    ...errors,
    ...(valid("kubernetesVersion") ? upgradeErrors(applied.kubernetesVersion, spec.kubernetesVersion) : []),
    ...fixedSettingErrors(applied, spec, valid),
    ...stackAwsErrors(flat),
    ...misspelt,
  ];
  if (all.length > 0) throw new ConfigValidationError(all);
  return Object.freeze(spec);
}

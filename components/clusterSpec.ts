/** Raw cluster config → validated, defaulted spec, every problem at once. */
import type { AppliedState } from "../config/appliedState";
import type { ClusterConfig, ClusterSpec } from "../config/types";
import { fixedSettingErrors } from "../config/validation/fixedOnceDeployed";
import { upgradeErrors } from "../config/validation/kubernetesUpgrade";
import { validateConfig } from "./clusterConfigValidation";
import { ConfigValidationError } from "../config/validation/report";

/**
 * Validates a cluster's config; throws a ConfigValidationError listing every problem. `applied` is what the
 * cluster's last update applied (none for a new cluster): a kubernetesVersion that is a valid release is
 * also held to the upgrade rules (config/validation/kubernetesUpgrade.ts), and the settings fixed once the stack
 * is deployed to their applied values (config/validation/fixedOnceDeployed.ts).
 */
export function clusterSpec(
  config: ClusterConfig,
  region: string | undefined,
  applied: AppliedState = {},
): ClusterSpec {
  const { spec, errors } = validateConfig(config as Record<string, unknown>, region);
  const valid = (field: string) => !errors.some((e) => e.field === field);
  const all = [
    ...errors,
    ...(valid("kubernetesVersion") ? upgradeErrors(applied.kubernetesVersion, spec.kubernetesVersion) : []),
    ...fixedSettingErrors(applied, spec, valid),
  ];
  if (all.length > 0) throw new ConfigValidationError(all);
  return Object.freeze(spec);
}

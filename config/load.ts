/** The one place config is read: Pulumi config → raw config → validated, defaulted spec. */
import * as pulumi from "@pulumi/pulumi";
import { readRawConfig } from "./read";
import type { AppliedState } from "../components/appliedState";
import type { ClusterSpec } from "./types";
import { fixedSettingErrors } from "./validation/fixedOnceDeployed";
import { upgradeErrors } from "./validation/kubernetesUpgrade";
import { validateConfig } from "./validation/validateConfig";
import { ConfigValidationError } from "./validation/report";

/**
 * Reads and validates the stack config; throws a ConfigValidationError listing every problem. `applied` is
 * what the stack's last update applied (none for a stack not deployed): a kubernetesVersion that is a valid
 * release is also held to the upgrade rules (validation/kubernetesUpgrade.ts), and the settings fixed once
 * the stack is deployed to their applied values (validation/fixedOnceDeployed.ts).
 */
export function loadSpec(applied: AppliedState = {}): ClusterSpec {
  const { raw, region } = readRawConfig(pulumi.runtime.allConfig());
  const { spec, errors } = validateConfig(raw, region);
  const valid = (field: string) => !errors.some((e) => e.field === field);
  const all = [
    ...errors,
    ...(valid("kubernetesVersion") ? upgradeErrors(applied.kubernetesVersion, spec.kubernetesVersion) : []),
    ...fixedSettingErrors(applied, spec, valid),
  ];
  if (all.length > 0) throw new ConfigValidationError(all);
  return Object.freeze(spec);
}

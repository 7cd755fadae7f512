/** The one place config is read: Pulumi config → raw config → validated, defaulted spec. */
import * as pulumi from "@pulumi/pulumi";
import { readRawConfig } from "./read";
import type { AppliedState } from "../components/appliedState";
import type { ClusterSpec } from "./types";
import { iamPathErrors } from "./validation/iamPath";
import { upgradeErrors } from "./validation/kubernetesUpgrade";
import { validateConfig } from "./validation/validateConfig";
import { ConfigValidationError } from "./validation/report";

/**
 * Reads and validates the stack config; throws a ConfigValidationError listing every problem. `applied` is
 * what the stack's last update applied (none for a stack not deployed): a kubernetesVersion that is a valid
 * release is also held to the upgrade rules (validation/kubernetesUpgrade.ts), and a valid iam.path must be
 * the one the stack's roles are at (validation/iamPath.ts).
 */
export function loadSpec(applied: AppliedState = {}): ClusterSpec {
  const { raw, region } = readRawConfig(pulumi.runtime.allConfig());
  const { spec, errors } = validateConfig(raw, region);
  const valid = (field: string) => !errors.some((e) => e.field === field);
  const all = [
    ...errors,
    ...(valid("kubernetesVersion") ? upgradeErrors(applied.kubernetesVersion, spec.kubernetesVersion) : []),
    ...(valid("iam.path") ? iamPathErrors(applied.iamPath, spec.iam.path) : []),
  ];
  if (all.length > 0) throw new ConfigValidationError(all);
  return Object.freeze(spec);
}

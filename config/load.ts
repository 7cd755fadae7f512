/** The one place config is read: Pulumi config → raw config → validated, defaulted spec. */
import * as pulumi from "@pulumi/pulumi";
import { readRawConfig } from "./read";
import type { ClusterSpec } from "./types";
import { upgradeErrors } from "./validation/kubernetesUpgrade";
import { validateConfig } from "./validation/validateConfig";
import { ConfigValidationError } from "./validation/report";

/**
 * Reads and validates the stack config; throws a ConfigValidationError listing every problem. With
 * `appliedVersion`, the Kubernetes version the stack's last update applied, a kubernetesVersion that is a
 * valid release is also held to the upgrade rules (validation/kubernetesUpgrade.ts).
 */
export function loadSpec(appliedVersion?: string): ClusterSpec {
  const { raw, region } = readRawConfig(pulumi.runtime.allConfig());
  const { spec, errors } = validateConfig(raw, region);
  const releaseValid = !errors.some((e) => e.field === "kubernetesVersion");
  const all = [...errors, ...(releaseValid ? upgradeErrors(appliedVersion, spec.kubernetesVersion) : [])];
  if (all.length > 0) throw new ConfigValidationError(all);
  return Object.freeze(spec);
}

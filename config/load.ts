/** The one place config is read: Pulumi config → raw config → validated, defaulted spec. */
import * as pulumi from "@pulumi/pulumi";
import { readRawConfig } from "./read";
import type { ClusterSpec } from "./types";
import { validateConfig } from "./validation/validateConfig";
import { ConfigValidationError } from "./validation/report";

/** Reads and validates the stack config; throws a ConfigValidationError listing every problem. */
export function loadSpec(): ClusterSpec {
  const { raw, region } = readRawConfig(pulumi.runtime.allConfig());
  const { spec, errors } = validateConfig(raw, region);
  if (errors.length > 0) throw new ConfigValidationError(errors);
  return Object.freeze(spec);
}

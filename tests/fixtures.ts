/** Shared test inputs: a valid raw config like the dev stack's, and a deep-merge helper to vary it. */
import type { ClusterSpec } from "../config/types";
import { validateConfig } from "../components/clusterConfigValidation";

export type Raw = Record<string, unknown>;

export const REGION = "us-east-1";

export function baseConfig(): Raw {
  return {
    clusterName: "dev.k8s.local",
    network: { cidr: "10.0.0.0/16", availabilityZones: ["us-east-1a", "us-east-1b", "us-east-1c"] },
    networking: { cilium: { ipam: "eni", disableMasquerade: true } },
    nodeGroups: [{ name: "nodes", instanceType: "t3.large", minSize: 2, maxSize: 4 }],
    api: { access: ["203.0.113.0/24"] },
    controlPlane: { acceptSingleNodeLoss: true },
  };
}

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** `base` with `edit` merged in; objects merge key by key, anything else (lists too) replaces. */
export function merge(base: Raw, edit: Raw): Raw {
  const out: Raw = { ...base };
  for (const [k, v] of Object.entries(edit)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Raw, v) : v;
  return out;
}

/** The validated spec of the base config with `edit` merged in; a config the edit makes invalid throws. */
export function specWith(edit: Raw): ClusterSpec {
  const { spec, errors } = validateConfig(merge(baseConfig(), edit), REGION);
  if (errors.length) throw new Error(`config invalid: ${JSON.stringify(errors)}`);
  return spec;
}

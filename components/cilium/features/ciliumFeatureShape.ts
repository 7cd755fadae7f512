/**
 * A Cilium feature: one option of `networking.cilium`, its keys and rules, and everything it adds to
 * Cilium's objects, in one module of this folder, listed once in `ciliumFeatures.ts`. The schema (through
 * the generated config/featureKeys.ts), the keys `extraConfig` may not set, the renderers, the parity test,
 * the fuzzer and docs/cilium.md read the list.
 */
import type { CiliumSpec } from "../ciliumSpec";
import type { K8sObject } from "../../k8s/object";
import type { IntendedDifference } from "../../k8s/chartDifference";
import type { CiliumRelease } from "../../../catalogs/ciliumVersions";
import type { AnyField } from "../../../config/schemaTypes";

/** What a feature adds to the agent's pod: its container's ports and mounts, and the pod's volumes. */
export interface AgentAdditions {
  ports: object[];
  volumeMounts: object[];
  volumes: object[];
}

/** Where a feature's objects go: Cilium's namespace, and the release (with its chart's digests, if recorded). */
export interface ObjectContext {
  namespace: string;
  release: CiliumRelease | undefined;
}

/** A config edit, as a stack file writes it (`{ networking: { cilium: { ... } } }`). */
export type ConfigEdit = Record<string, unknown>;

export interface CiliumFeature {
  name: string;
  /**
   * Its keys under `networking.cilium`, with their rules across keys as data (`requires`): `npm run
   * generate` writes every feature's into config/featureKeys.ts, which the schema takes in, so the
   * spec's type, defaults, unknown-key checks, validation and docs come from here.
   */
  schema: Readonly<Record<string, AnyField>>;
  /** The `cilium-config` keys it renders, each with the config key that sets it: `extraConfig` may not set them. */
  managedKeys: Readonly<Record<string, string>>;
  /** Its `cilium-config` keys for a spec (none when off). */
  config: (spec: CiliumSpec) => Record<string, string>;
  /** What it adds to the agent's pod, when on. */
  agent?: (spec: CiliumSpec) => AgentAdditions;
  /** Its own objects, when on: what must exist first, then its workloads. */
  objects?: (spec: CiliumSpec, where: ObjectContext) => { foundation: K8sObject[]; workloads: K8sObject[] };
  /** The chart values that make the same choice, for the parity test against Cilium's chart. */
  chartValues: (spec: CiliumSpec) => Record<string, unknown>;
  /**
   * Config edits that turn it on, each checked against the chart on every shipped line, and `off`, the edit
   * that turns it off again (the managed-key test renders both).
   */
  cases: { on: Readonly<Record<string, ConfigEdit>>; off: ConfigEdit };
  /** Its reviewed differences from the chart, listed in docs/cilium.md. */
  intendedDifferences?: readonly IntendedDifference[];
}

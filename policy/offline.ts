/**
 * The policy pack run offline against planned resources, as `pulumi preview --policy-pack policy` runs it
 * against a real preview: every policy's `validateResource` on every resource's inputs.
 */
import type { ResourceValidationArgs } from "@pulumi/policy";
import { policies } from "./guardRails";

export interface PlannedInputs {
  type: string;
  name: string;
  urn?: string;
  inputs: unknown;
}

/** `policy-name: message` for every violation of one resource. */
export function violations(type: string, props: Record<string, unknown>, name = "test"): string[] {
  const found: string[] = [];
  const args = {
    type,
    props,
    urn: `urn:pulumi:test::cilium-cluster::${type}::${name}`,
    name,
    opts: {},
    isType: () => false,
    asType: () => undefined,
    getConfig: () => ({}),
    notApplicable: () => undefined,
  } as unknown as ResourceValidationArgs;
  for (const p of policies) {
    const validate = p.validateResource as (a: ResourceValidationArgs, report: (m: string) => void) => void;
    validate(args, (message) => found.push(`${p.name}: ${message}`));
  }
  return found;
}

/** `name (type): policy: message` for every violation in a plan's resources. */
export function evaluatePlan(resources: readonly PlannedInputs[]): string[] {
  return resources.flatMap((r) =>
    violations(r.type, (r.inputs ?? {}) as Record<string, unknown>, r.name).map((v) => `${r.name} (${r.type}): ${v}`),
  );
}

/**
 * The policy pack run offline against planned resources, as `pulumi preview --policy-pack policy` runs it
 * against a real preview: every policy's `validateResource` on every resource's inputs, and every stack
 * policy's `validateStack` on them all.
 */
import type { PolicyResource, ResourceValidationArgs, StackValidationArgs } from "@pulumi/policy";
import { policies, stackPolicies } from "./guardRails";

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

/**
 * `name (type): policy: message` for every stack policy's violation. Offline no engine names the resource a
 * property came from (`propertyDependencies`): the policies find it by the values the plan's mocks give.
 */
export function stackViolations(resources: readonly PlannedInputs[]): string[] {
  const all = resources.map(
    (r): PolicyResource =>
      ({
        type: r.type,
        name: r.name,
        urn: r.urn ?? `urn:pulumi:test::cilium-cluster::${r.type}::${r.name}`,
        props: (r.inputs ?? {}) as Record<string, unknown>,
        dependencies: [],
        propertyDependencies: {},
      }) as unknown as PolicyResource,
  );
  const found: string[] = [];
  for (const p of stackPolicies) {
    const args = { resources: all, getConfig: () => ({}) } as unknown as StackValidationArgs;
    p.validateStack(args, (message, urn) => {
      const r = all.find((x) => x.urn === urn);
      found.push(`${r ? `${r.name} (${r.type}): ` : ""}${p.name}: ${message}`);
    });
  }
  return found;
}

/** `name (type): policy: message` for every violation in a plan's resources. */
export function evaluatePlan(resources: readonly PlannedInputs[]): string[] {
  return [
    ...resources.flatMap((r) =>
      violations(r.type, (r.inputs ?? {}) as Record<string, unknown>, r.name).map((v) => `${r.name} (${r.type}): ${v}`),
    ),
    ...stackViolations(resources),
  ];
}

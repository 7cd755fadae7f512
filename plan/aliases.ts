/**
 * A registration's aliases as URNs: what an existing stack's state may hold the resource under. Alias
 * specs are resolved the way the engine does (fields left empty are the resource's own; the parent is
 * the resource's unless the spec names one or says it had none), with the mock monitor's URN scheme, so
 * they compare with the URNs the plan records.
 */

interface AliasSpec {
  getName(): string;
  getType(): string;
  getStack(): string;
  getProject(): string;
  getParenturn(): string;
  getNoparent(): boolean;
}

export interface Alias {
  hasUrn(): boolean;
  getUrn(): string;
  getSpec(): AliasSpec | undefined;
}

export type NewUrn = (parent: string, type: string, name: string) => string;

export function aliasUrn(alias: Alias, own: { type: string; name: string; parent: string }, newUrn: NewUrn): string {
  if (alias.hasUrn()) return alias.getUrn();
  const spec = alias.getSpec();
  if (!spec) throw new Error(`an alias of ${own.name} has neither a URN nor a spec`);
  if (spec.getStack() || spec.getProject())
    throw new Error(`the plan cannot resolve ${own.name}'s alias into another stack`);
  const parent = spec.getNoparent() ? "" : spec.getParenturn() || own.parent;
  return newUrn(parent, spec.getType() || own.type, spec.getName() || own.name);
}

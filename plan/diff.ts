/**
 * The offline equivalent of `pulumi preview --diff` for a config edit: the plan with the edit against the
 * plan without it, per resource create / update / replace / delete with the changed input paths. A
 * replacement cascades to what references the replaced resource (a new subnet ID changes the Auto Scaling
 * groups in it and replaces its NAT gateway and route-table associations), as it does in a real preview.
 */
import { mockId } from "./mocks";
import type { Plan, PlannedResource } from "./run";
import { forcesReplacement, replacedBy } from "./replaceKeys";
import { withSortedSets } from "./setProperties";

export interface PropertyChange {
  path: string;
  old: unknown;
  new: unknown;
  replaces: boolean;
  /** Set when the value changes because the resource it references (named here) is replaced. */
  cause?: string;
}

export interface ResourceChange {
  op: "create" | "update" | "replace" | "delete";
  urn: string;
  type: string;
  name: string;
  changes: PropertyChange[];
  /** Replaced resources this one references: it changes (or is replaced) because they get new IDs. */
  causes: string[];
}

export interface PlanDiff {
  changes: ResourceChange[];
  /** Launch templates whose new version rolls their group's nodes. */
  rollingGroups: string[];
  before: Plan;
  after: Plan;
}

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";

function changedPaths(a: unknown, b: unknown, path: string, out: [string, unknown, unknown][]): void {
  const bothObjects = a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b);
  if (bothObjects) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of [...keys].sort()) {
      const sub = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      changedPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], sub, out);
    }
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push([path, a, b]);
  }
}

/** Whether an input path is `key` or inside it (`key.x`, `key[0]`). */
const isAtOrBelow = (path: string, key: string): boolean =>
  path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);

/** Input paths whose value is the ID or ARN of a resource in `targets` (keyed by its mock ID). */
function referencePaths(value: unknown, path: string, targets: Map<string, string>, out: [string, string][]): void {
  if (typeof value === "string") {
    for (const [id, suffix] of targets) if (value === id || value.endsWith(suffix)) out.push([path, id]);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => referencePaths(v, `${path}[${i}]`, targets, out));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) referencePaths(v, path ? `${path}.${k}` : k, targets, out);
  }
}

/** The mock ARN's tail (`:<Type>/<name>`), which references by ARN end with. */
const arnSuffix = (r: { type: string; name: string }): string => `:${r.type.split(":")[2]}/${r.name}`;

/** Marks the changes to inputs the provider's conditional rules say force replacement (replaceKeys.ts). */
function applyConditionalRules(change: ResourceChange, prior: PlannedResource | undefined, r: PlannedResource): void {
  const forced = replacedBy(
    r.type,
    prior?.inputs,
    r.inputs,
    change.changes.map((c) => c.path),
  );
  for (const c of change.changes) if (forced.includes(c.path.split(/[.[]/)[0])) c.replaces = true;
}

/**
 * Follows replacements through references until nothing new is replaced: a resource whose input holds a
 * replaced resource's ID gets a new value there; if that input forces replacement it is replaced too.
 */
function cascade(changes: Map<string, ResourceChange>, before: Plan, after: Plan): void {
  const byId = new Map(after.resources.map((r) => [mockId(r.type, r.name), r]));
  const prior = new Map(before.resources.map((r) => [r.urn, r]));
  let replaced = [...changes.values()].filter((c) => c.op === "replace");
  while (replaced.length > 0) {
    const targets = new Map(replaced.map((c) => [mockId(c.type, c.name), arnSuffix(c)]));
    const next: ResourceChange[] = [];
    for (const r of after.resources) {
      const current = changes.get(r.urn);
      if (current && (current.op === "create" || current.op === "delete")) continue;
      const refs: [string, string][] = [];
      referencePaths(r.inputs, "", targets, refs);
      const fresh = refs.filter(([path]) => !current?.changes.some((c) => c.path === path));
      if (fresh.length === 0) continue;
      const entry = current ?? { op: "update", urn: r.urn, type: r.type, name: r.name, changes: [], causes: [] };
      for (const [path, id] of fresh) {
        const cause = byId.get(id)?.name ?? id;
        const replaces = forcesReplacement(r.type, path);
        entry.changes.push({ path, old: id, new: `(new ID: ${cause} is replaced)`, replaces, cause });
        if (!entry.causes.includes(cause)) entry.causes.push(cause);
      }
      applyConditionalRules(entry, prior.get(r.urn), r);
      if (entry.op !== "replace" && entry.changes.some((c) => c.replaces)) {
        entry.op = "replace";
        next.push(entry);
      }
      changes.set(r.urn, entry);
    }
    replaced = next;
  }
}

export function diffPlans(before: Plan, after: Plan): PlanDiff {
  const old = new Map(before.resources.map((r) => [r.urn, r]));
  const updated = new Map(after.resources.map((r) => [r.urn, r]));
  const changes = new Map<string, ResourceChange>();
  const entry = (op: ResourceChange["op"], r: PlannedResource, props: PropertyChange[] = []): ResourceChange => ({
    op,
    urn: r.urn,
    type: r.type,
    name: r.name,
    changes: props,
    causes: [],
  });
  for (const r of after.resources) {
    const prior = old.get(r.urn);
    if (!prior) {
      changes.set(r.urn, entry("create", r));
      continue;
    }
    const paths: [string, unknown, unknown][] = [];
    changedPaths(withSortedSets(r.type, prior.inputs), withSortedSets(r.type, r.inputs), "", paths);
    // The engine keeps the old value of an ignored input on update: no change there.
    const changed = paths.filter(([path]) => !(r.ignoreChanges ?? []).some((key) => isAtOrBelow(path, key)));
    if (changed.length === 0) continue;
    const props = changed.map(([path, o, n]) => ({ path, old: o, new: n, replaces: forcesReplacement(r.type, path) }));
    const change = entry("update", r, props);
    applyConditionalRules(change, prior, r);
    if (props.some((p) => p.replaces)) change.op = "replace";
    changes.set(r.urn, change);
  }
  for (const r of before.resources) if (!updated.has(r.urn)) changes.set(r.urn, entry("delete", r));
  cascade(changes, before, after);
  const list = [...changes.values()].sort((a, b) => a.urn.localeCompare(b.urn));
  const rollingGroups = list
    .filter((c) => c.type === LAUNCH_TEMPLATE && c.op !== "create" && c.op !== "delete")
    .map((c) => c.name);
  return { changes: list, rollingGroups, before, after };
}

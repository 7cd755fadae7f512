/**
 * The offline equivalent of `pulumi preview --diff` for a config edit: the plan with the edit against the
 * plan without it, per resource create / update / replace / delete with the changed input paths, and
 * whether nodes will roll (a launch template changed, so its Auto Scaling group refreshes its instances).
 */
import type { Plan, PlannedResource } from "./run";
import { forcesReplacement } from "./replaceKeys";

export interface PropertyChange {
  path: string;
  old: unknown;
  new: unknown;
  replaces: boolean;
}

export interface ResourceChange {
  op: "create" | "update" | "replace" | "delete";
  urn: string;
  type: string;
  name: string;
  changes: PropertyChange[];
}

export interface PlanDiff {
  changes: ResourceChange[];
  /** Launch templates whose new version rolls their group's nodes. */
  rollingGroups: string[];
}

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

export function diffPlans(before: Plan, after: Plan): PlanDiff {
  const old = new Map(before.resources.map((r) => [r.urn, r]));
  const updated = new Map(after.resources.map((r) => [r.urn, r]));
  const changes: ResourceChange[] = [];
  const entry = (op: ResourceChange["op"], r: PlannedResource, props: PropertyChange[] = []): ResourceChange => ({
    op,
    urn: r.urn,
    type: r.type,
    name: r.name,
    changes: props,
  });
  for (const r of after.resources) {
    const prior = old.get(r.urn);
    if (!prior) {
      changes.push(entry("create", r));
      continue;
    }
    const paths: [string, unknown, unknown][] = [];
    changedPaths(prior.inputs, r.inputs, "", paths);
    if (paths.length === 0) continue;
    const props = paths.map(([path, o, n]) => ({ path, old: o, new: n, replaces: forcesReplacement(r.type, path) }));
    changes.push(entry(props.some((p) => p.replaces) ? "replace" : "update", r, props));
  }
  for (const r of before.resources) if (!updated.has(r.urn)) changes.push(entry("delete", r));
  changes.sort((a, b) => a.urn.localeCompare(b.urn));
  const rollingGroups = changes
    .filter((c) => c.type === "aws:ec2/launchTemplate:LaunchTemplate" && c.op !== "create" && c.op !== "delete")
    .map((c) => c.name);
  return { changes, rollingGroups };
}

/**
 * The offline equivalent of `pulumi preview --diff` for a config edit: the plan with the edit against the
 * plan without it, per resource create / update / replace / delete with the changed input paths. A
 * replacement cascades to what references the replaced resource (a new subnet ID changes the Auto Scaling
 * groups in it and replaces its NAT gateway and route-table associations), as it does in a real preview.
 */
import { decodeUserData } from "../../components/nodes/userDataEncoding";
import { mockDnsLabel, mockId } from "./mocks";
import type { Plan, PlannedResource } from "./run";
import { BOOTSTRAP_SCRIPT } from "./clusterFacts";
import { forcesReplacement, replacedBy } from "./replaceKeys";
import { withSortedSets } from "./setProperties";
import { byCodePoint } from "../../components/codePointOrder";

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
  /** What changes; for a resource created or deleted, every input it is created with or had. */
  changes: PropertyChange[];
  /** Replaced resources this one references: it changes (or is replaced) because they get new IDs. */
  causes: string[];
}

export interface PlanDiff {
  changes: ResourceChange[];
  /** Launch templates whose new version rolls their group's nodes. */
  rollingGroups: string[];
  /** The stack outputs that change, by path, as `pulumi preview --diff` lists them under Outputs. */
  outputs: PropertyChange[];
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

/** Every leaf of `value` with its path (an empty object or list is a leaf), as a create or delete lists them. */
function leafPaths(value: unknown, path: string, out: [string, unknown][]): void {
  const entries = value && typeof value === "object" ? Object.entries(value) : [];
  if (entries.length === 0) {
    if (path) out.push([path, value]);
    return;
  }
  for (const [k, v] of entries) leafPaths(v, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k, out);
}

const allInputs = (r: PlannedResource, side: "old" | "new"): PropertyChange[] => {
  const leaves: [string, unknown][] = [];
  leafPaths(r.inputs, "", leaves);
  return leaves.map(([path, v]) => ({
    path,
    old: side === "old" ? v : undefined,
    new: side === "new" ? v : undefined,
    replaces: false,
  }));
};

/** Whether an input path is `key` or inside it (`key.x`, `key[0]`). */
const isAtOrBelow = (path: string, key: string): boolean =>
  path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);

/**
 * A replaced resource as others refer to it: by its ID, its ARN or its DNS name. `find` gives what a value
 * holds of it, and `what` names that for the diff.
 */
interface Target {
  name: string;
  urn: string;
  find: (value: string) => { held: string; what: string } | undefined;
}

/** The mock ARN's tail (`:<Type>/<name>`), which references by ARN end with. */
const arnSuffix = (r: { type: string; name: string }): string => `:${r.type.split(":")[2]}/${r.name}`;

function targetOf(c: ResourceChange, before: Plan): Target {
  // A group's installer: its loader (the launch template's user data) names it by its key.
  const installerKey =
    c.type === BOOTSTRAP_SCRIPT
      ? (before.resources.find((r) => r.urn === c.urn)?.inputs as { key?: unknown } | undefined)?.key
      : undefined;
  if (typeof installerKey === "string")
    return {
      name: c.name,
      urn: c.urn,
      find: (value) => (value.includes(installerKey) ? { held: installerKey, what: "key" } : undefined),
    };
  const id = mockId(c.type, c.name);
  const dnsName = new RegExp(`${mockDnsLabel(c.name)}\\.[a-z0-9.-]+`);
  return {
    name: c.name,
    urn: c.urn,
    find: (value) => {
      if (value === id || value.endsWith(arnSuffix(c))) return { held: id, what: "ID" };
      const host = dnsName.exec(value)?.[0];
      return host === undefined ? undefined : { held: host, what: "DNS name" };
    },
  };
}

interface Reference {
  path: string;
  target: Target;
  held: string;
  what: string;
}

/** Paths in `value` that hold a target, each with the first target it holds. */
function referencePaths(value: unknown, path: string, targets: readonly Target[], out: Reference[]): void {
  if (typeof value === "string") {
    for (const target of targets) {
      const found = target.find(value);
      if (found) {
        out.push({ path, target, ...found });
        return;
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => referencePaths(v, `${path}[${i}]`, targets, out));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) referencePaths(v, path ? `${path}.${k}` : k, targets, out);
  }
}

/** A resource's inputs as references are looked for in them: a launch template's user data as its text. */
function scannedInputs(r: PlannedResource): unknown {
  const inputs = (r.inputs ?? {}) as Record<string, unknown>;
  if (r.type !== LAUNCH_TEMPLATE || typeof inputs.userData !== "string") return inputs;
  return { ...inputs, userData: decodeUserData(inputs.userData) };
}

const newValue = (ref: Reference) => `(new ${ref.what}: ${ref.target.name} is replaced)`;

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
  const prior = new Map(before.resources.map((r) => [r.urn, r]));
  let replaced = [...changes.values()].filter((c) => c.op === "replace");
  while (replaced.length > 0) {
    const targets = replaced.map((c) => targetOf(c, before));
    const next: ResourceChange[] = [];
    for (const r of after.resources) {
      const current = changes.get(r.urn);
      if (current && (current.op === "create" || current.op === "delete")) continue;
      const refs: Reference[] = [];
      referencePaths(scannedInputs(r), "", targets, refs);
      // Never itself (an installer's own key input holds its key); names repeat across types, URNs do not.
      const fresh = refs.filter(
        (ref) => ref.target.urn !== r.urn && !current?.changes.some((c) => c.path === ref.path),
      );
      if (fresh.length === 0) continue;
      const entry = current ?? { op: "update", urn: r.urn, type: r.type, name: r.name, changes: [], causes: [] };
      for (const ref of fresh) {
        const cause = ref.target.name;
        const replaces = forcesReplacement(r.type, ref.path);
        entry.changes.push({ path: ref.path, old: ref.held, new: newValue(ref), replaces, cause });
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
      changes.set(r.urn, entry("create", r, allInputs(r, "new")));
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
  for (const r of before.resources)
    if (!updated.has(r.urn)) changes.set(r.urn, entry("delete", r, allInputs(r, "old")));
  cascade(changes, before, after);
  const list = [...changes.values()].sort((a, b) => byCodePoint(a.urn, b.urn));
  const rollingGroups = list
    .filter((c) => c.type === LAUNCH_TEMPLATE && c.op !== "create" && c.op !== "delete")
    .map((c) => c.name);
  return { changes: list, rollingGroups, outputs: outputChanges(list, before, after), before, after };
}

/** Outputs whose value changes, and those that hold a replaced resource's ID or DNS name (new once applied). */
function outputChanges(changes: readonly ResourceChange[], before: Plan, after: Plan): PropertyChange[] {
  const paths: [string, unknown, unknown][] = [];
  changedPaths(before.outputs, after.outputs, "", paths);
  const result: PropertyChange[] = paths.map(([path, o, n]) => ({ path, old: o, new: n, replaces: false }));
  const refs: Reference[] = [];
  referencePaths(
    after.outputs,
    "",
    changes.filter((c) => c.op === "replace").map((c) => targetOf(c, before)),
    refs,
  );
  for (const ref of refs.filter((r) => !result.some((c) => c.path === r.path))) {
    result.push({ path: ref.path, old: ref.held, new: newValue(ref), replaces: false, cause: ref.target.name });
  }
  return result.sort((a, b) => byCodePoint(a.path, b.path));
}

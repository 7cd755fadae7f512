/**
 * IAM policy documents diffed statement by statement, in full: statements are matched by `Sid` (or, without
 * one, by their content), and a changed statement lists the actions, resources and conditions it gains and
 * loses. A reviewer sees exactly which permissions an edit grants, e.g. the ENI actions an IPAM switch adds.
 */

interface Statement {
  Sid?: string;
  Effect?: string;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: unknown;
  Principal?: unknown;
}

export interface StatementChange {
  /** The Sid, or the statement's content when it has none. */
  id: string;
  op: "added" | "removed" | "changed";
  /** Lines to show, each starting with `+ ` or `- ` (or two spaces for context). */
  lines: string[];
  /** Actions an `Allow` statement grants that it did not grant before. */
  grants: string[];
  /** Actions an `Allow` statement no longer grants. */
  revokes: string[];
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function statementsOf(document: unknown): Statement[] {
  if (typeof document !== "string") return [];
  try {
    const parsed = JSON.parse(document) as { Statement?: Statement | Statement[] };
    return parsed.Statement === undefined
      ? []
      : Array.isArray(parsed.Statement)
        ? parsed.Statement
        : [parsed.Statement];
  } catch {
    return [];
  }
}

const identity = (s: Statement): string => s.Sid ?? JSON.stringify(s);
const allowed = (s: Statement | undefined): string[] => (s && s.Effect === "Allow" ? list(s.Action) : []);

/** Every field of a statement as `Field: value` lines. */
function fieldLines(s: Statement, mark: "+" | "-"): string[] {
  return Object.entries(s).flatMap(([field, value]) =>
    Array.isArray(value)
      ? [`${mark} ${field}:`, ...value.map((v) => `${mark}   ${String(v)}`)]
      : [`${mark} ${field}: ${typeof value === "string" ? value : JSON.stringify(value)}`],
  );
}

/** Field-by-field lines for a statement present before and after. */
function changedLines(before: Statement, after: Statement): string[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])] as (keyof Statement)[];
  return fields.flatMap((field) => {
    const [a, b] = [before[field], after[field]];
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    const listy = (v: unknown) => v === undefined || typeof v === "string" || Array.isArray(v);
    if (listy(a) && listy(b)) {
      const [old, now] = [list(a as string[]), list(b as string[])];
      return [
        `  ${field}:`,
        ...old.filter((v) => !now.includes(v)).map((v) => `-   ${v}`),
        ...now.filter((v) => !old.includes(v)).map((v) => `+   ${v}`),
      ];
    }
    return [`- ${field}: ${JSON.stringify(a)}`, `+ ${field}: ${JSON.stringify(b)}`];
  });
}

export function diffPolicy(before: unknown, after: unknown): StatementChange[] {
  const old = new Map(statementsOf(before).map((s) => [identity(s), s]));
  const now = new Map(statementsOf(after).map((s) => [identity(s), s]));
  const changes: StatementChange[] = [];
  for (const [id, s] of now) {
    const prior = old.get(id);
    if (prior && JSON.stringify(prior) === JSON.stringify(s)) continue;
    const grants = allowed(s).filter((a) => !allowed(prior).includes(a));
    const revokes = allowed(prior).filter((a) => !allowed(s).includes(a));
    changes.push(
      prior
        ? { id, op: "changed", lines: changedLines(prior, s), grants, revokes }
        : { id, op: "added", lines: fieldLines(s, "+"), grants, revokes },
    );
  }
  for (const [id, s] of old) {
    if (!now.has(id)) changes.push({ id, op: "removed", lines: fieldLines(s, "-"), grants: [], revokes: allowed(s) });
  }
  return changes;
}

/** Input paths that hold a policy document, per resource type. */
export const POLICY_DOCUMENTS: Record<string, string> = {
  "aws:iam/policy:Policy": "policy",
  "aws:iam/role:Role": "assumeRolePolicy",
};

/** Every action a document's `Allow` statements grant. */
export function allowedActions(document: unknown): Set<string> {
  return new Set(statementsOf(document).flatMap((s) => allowed(s)));
}

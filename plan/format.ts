/** Text and markdown renderings of a plan and of a plan diff: the summary of risks first, then details. */
import { decodeUserData } from "../components/nodes/userDataEncoding";
import type { PlanDiff, PropertyChange, ResourceChange } from "./diff";
import { diffPolicy, POLICY_DOCUMENTS } from "./policyDiff";
import { assessRisks, Risk } from "./risks";
import type { Plan } from "./run";
import { renderSummary, renderTree } from "./tree";

export type Format = "text" | "markdown";

const SYMBOL = { create: "+", update: "~", replace: "+-", delete: "-" } as const;
const LEVEL = { error: "ERROR: ", warning: "WARNING: ", info: "" } as const;

function short(value: unknown): string {
  const text = value === undefined ? "(none)" : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** User data is gzipped base64 text; a reviewer wants the lines that changed, not two blobs. */
function userDataLines(change: PropertyChange): string[] {
  const decode = (v: unknown) => (typeof v === "string" ? decodeUserData(v).split("\n") : []);
  const before = decode(change.old);
  const after = decode(change.new);
  const removed = before.filter((l) => !after.includes(l)).map((l) => `- ${l}`);
  const added = after.filter((l) => !before.includes(l)).map((l) => `+ ${l}`);
  return [...removed, ...added];
}

function describeChange(resource: ResourceChange, c: PropertyChange): string[] {
  const flag = c.replaces ? "  (forces replacement)" : "";
  if (c.path === "userData") return [`userData: changed${flag}`, ...userDataLines(c).map((l) => `    ${l}`)];
  if (POLICY_DOCUMENTS[resource.type] === c.path) {
    const statements = diffPolicy(c.old, c.new).flatMap((s) => [
      `  statement ${s.id} ${s.op}:`,
      ...s.lines.map((l) => `    ${l}`),
    ]);
    return [`${c.path}: changed${flag}`, ...statements];
  }
  return [`${c.path}: ${short(c.old)} → ${short(c.new)}${flag}`];
}

const details = (c: ResourceChange): string[] => c.changes.flatMap((p) => describeChange(c, p));

function counts(diff: PlanDiff): string {
  const n = (op: string) => diff.changes.filter((c) => c.op === op).length;
  return `${n("create")} to create, ${n("update")} to update, ${n("replace")} to replace, ${n("delete")} to delete`;
}

const riskLine = (r: Risk): string => `${LEVEL[r.level]}${r.text}`;

export function formatPlan(plan: Plan, format: Format): string {
  const tree = renderTree(plan.resources).join("\n");
  const summary = renderSummary(plan.resources);
  if (format === "markdown") return `### Plan\n\n\`\`\`\n${tree}\n\`\`\`\n\n${summary}\n`;
  return `${tree}\n\n${summary}\n`;
}

/** `title` names what the plan is compared with, e.g. "Changes from --set a=b". */
export function formatDiff(diff: PlanDiff, title: string, format: Format): string {
  const risks = diff.changes.length ? assessRisks(diff) : [];
  if (format === "markdown") {
    const summary = [`**${counts(diff)}.**`, ...risks.map((r) => `- ${riskLine(r)}`)].join("\n");
    const rows = diff.changes.map((c) => {
      const lines = details(c).map((l) => l.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/\|/g, "\\|"));
      return `| ${c.op} | \`${c.type}\` | ${c.name} | ${lines.length ? `<pre>${lines.join("<br>")}</pre>` : ""} |`;
    });
    if (rows.length === 0) return `### ${title}\n\nNo changes.\n`;
    const table = ["| op | type | name | changes |", "| --- | --- | --- | --- |", ...rows].join("\n");
    return `### ${title}\n\n${summary}\n\n<details><summary>Details</summary>\n\n${table}\n\n</details>\n`;
  }
  const lines = [`${title}:`];
  if (diff.changes.length === 0) return `${lines[0]}\n  no changes\n`;
  lines.push(`  ${counts(diff)}.`, ...risks.map((r) => `  ${riskLine(r)}`), "", "Details:");
  for (const c of diff.changes) {
    lines.push(`  ${SYMBOL[c.op].padEnd(2)} ${c.op.padEnd(7)} ${c.type}  ${c.name}`);
    for (const d of details(c)) lines.push(`        ${d}`);
  }
  return lines.join("\n") + "\n";
}

/** True when the diff holds a change that must not be applied (exit code 1). */
export const hasErrors = (diff: PlanDiff): boolean => assessRisks(diff).some((r) => r.level === "error");

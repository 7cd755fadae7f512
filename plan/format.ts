/** Text and markdown renderings of a plan and of a plan diff. */
import { decodeUserData } from "../components/nodes/userDataEncoding";
import type { PlanDiff, PropertyChange } from "./diff";
import type { Plan } from "./run";
import { renderSummary, renderTree } from "./tree";

export type Format = "text" | "markdown";

const SYMBOL = { create: "+", update: "~", replace: "+-", delete: "-" } as const;

function short(value: unknown): string {
  const text = value === undefined ? "(none)" : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
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

function describeChange(c: PropertyChange): string[] {
  const flag = c.replaces ? "  (forces replacement)" : "";
  if (c.path === "userData") return [`userData: changed${flag}`, ...userDataLines(c).map((l) => `    ${l}`)];
  return [`${c.path}: ${short(c.old)} → ${short(c.new)}${flag}`];
}

function rollingText(diff: PlanDiff): string {
  if (diff.rollingGroups.length === 0) return "Nodes will not roll: no launch template changes.";
  return (
    `Nodes will roll: launch template(s) ${diff.rollingGroups.join(", ")} get a new version, and their ` +
    "Auto Scaling groups replace every instance by instance refresh."
  );
}

function counts(diff: PlanDiff): string {
  const n = (op: string) => diff.changes.filter((c) => c.op === op).length;
  return `${n("create")} to create, ${n("update")} to update, ${n("replace")} to replace, ${n("delete")} to delete`;
}

export function formatPlan(plan: Plan, format: Format): string {
  const tree = renderTree(plan.resources).join("\n");
  const summary = renderSummary(plan.resources);
  if (format === "markdown") return `### Plan\n\n\`\`\`\n${tree}\n\`\`\`\n\n${summary}\n`;
  return `${tree}\n\n${summary}\n`;
}

/** `title` names what the plan is compared with, e.g. "Changes from --set a=b". */
export function formatDiff(diff: PlanDiff, title: string, format: Format): string {
  if (format === "markdown") {
    const rows = diff.changes.map((c) => {
      const details = c.changes.flatMap(describeChange).map((l) => l.replace(/\|/g, "\\|"));
      return `| ${c.op} | \`${c.type}\` | ${c.name} | ${details.length ? `<pre>${details.join("<br>")}</pre>` : ""} |`;
    });
    const table = rows.length
      ? ["| op | type | name | changes |", "| --- | --- | --- | --- |", ...rows].join("\n")
      : "No changes.";
    return `### ${title}\n\n${table}\n\n${counts(diff)}. ${rollingText(diff)}\n`;
  }
  const lines = [title + ":"];
  for (const c of diff.changes) {
    lines.push(`  ${SYMBOL[c.op].padEnd(2)} ${c.op.padEnd(7)} ${c.type}  ${c.name}`);
    for (const d of c.changes.flatMap(describeChange)) lines.push(`        ${d}`);
  }
  if (diff.changes.length === 0) lines.push("  no changes");
  lines.push("", `${counts(diff)}.`, rollingText(diff));
  return lines.join("\n") + "\n";
}

/** Text and markdown renderings of a plan and of a plan diff: the summary of risks first, then details. */
import type { PlanDiff, PropertyChange, ResourceChange } from "./diff";
import { diffPolicy, POLICY_DOCUMENTS } from "./policyDiff";
import { unifiedDiff } from "./lineDiff";
import { assessRisks, Risk, RiskOptions } from "./risks";
import type { Plan } from "./run";
import { BOOTSTRAP_SCRIPT } from "./clusterFacts";
import { carriedScriptOf } from "./artifacts";
import { renderSummary, renderTree } from "./tree";

export type Format = "text" | "markdown";

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
const SYMBOL = { create: "+", update: "~", replace: "+-", delete: "-" } as const;
const LEVEL = { error: "ERROR: ", warning: "WARNING: ", info: "" } as const;

function short(value: unknown): string {
  const text = value === undefined ? "(none)" : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** The scripts a diff shows line by line: a launch template's user data (the loader) and a group's installer. */
const LINE_DIFFED = new Set([LAUNCH_TEMPLATE, BOOTSTRAP_SCRIPT]);
type Script = NonNullable<ReturnType<typeof carriedScriptOf>>;

const scriptOf = (resource: ResourceChange, c: PropertyChange): Script | undefined =>
  LINE_DIFFED.has(resource.type) ? carriedScriptOf(resource.type, c.path) : undefined;

/** A reviewer wants the lines of a script that changed where they are, not two blobs. */
function scriptLines(script: Script, change: PropertyChange): string[] {
  const text = (v: unknown) => (typeof v === "string" ? script.text(v) : "");
  return unifiedDiff(text(change.old), text(change.new));
}

/** A created or deleted resource's input, as `pulumi preview --diff` lists it (secrets are `[secret]`). */
function describeInput(resource: ResourceChange, c: PropertyChange): string {
  const value = resource.op === "create" ? c.new : c.old;
  const script = scriptOf(resource, c);
  if (script && typeof value === "string") {
    const lines = script.text(value).split("\n").length;
    return `${c.path}: a script of ${lines} lines (--out writes it to ${script.file(resource.name)})`;
  }
  return `${c.path}: ${short(value)}`;
}

/** A policy document's statements that a change adds, changes or removes, each in full. */
const statementLines = (c: PropertyChange): string[] =>
  diffPolicy(c.old, c.new).flatMap((s) => [`  statement ${s.id} ${s.op}:`, ...s.lines.map((l) => `    ${l}`)]);

function describeChange(resource: ResourceChange, c: PropertyChange): string[] {
  const policyDocument = POLICY_DOCUMENTS[resource.type] === c.path;
  // A policy that comes or goes with a feature shows its statements, as a changed one does.
  if (policyDocument && (resource.op === "create" || resource.op === "delete"))
    return [`${c.path}:`, ...statementLines(c)];
  if (resource.op === "create" || resource.op === "delete") return [describeInput(resource, c)];
  const flag = c.replaces ? "  (forces replacement)" : "";
  const script = scriptOf(resource, c);
  if (script && !c.cause) return [`${c.path}: changed${flag}`, ...scriptLines(script, c).map((l) => `    ${l}`)];
  if (policyDocument) return [`${c.path}: changed${flag}`, ...statementLines(c)];
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

/** A stack output's change, as `pulumi preview --diff` lists it under Outputs. */
function describeOutput(o: PropertyChange): string {
  if (o.old === undefined) return `+ ${o.path}: ${short(o.new)}`;
  if (o.new === undefined) return `- ${o.path}: ${short(o.old)}`;
  return `~ ${o.path}: ${short(o.old)} → ${short(o.new)}`;
}

/** `title` names what the plan is compared with, e.g. "Changes from --set a=b". */
export function formatDiff(diff: PlanDiff, title: string, format: Format, options: RiskOptions = {}): string {
  const risks = diff.changes.length ? assessRisks(diff, options) : [];
  const outputs = diff.outputs.map(describeOutput);
  if (format === "markdown") {
    const summary = [`**${counts(diff)}.**`, ...risks.map((r) => `- ${riskLine(r)}`)].join("\n");
    const rows = diff.changes.map((c) => {
      const lines = details(c).map((l) => l.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/\|/g, "\\|"));
      return `| ${c.op} | \`${c.type}\` | ${c.name} | ${lines.length ? `<pre>${lines.join("<br>")}</pre>` : ""} |`;
    });
    if (rows.length === 0 && outputs.length === 0) return `### ${title}\n\nNo changes.\n`;
    const table = ["| op | type | name | changes |", "| --- | --- | --- | --- |", ...rows].join("\n");
    const outputList = outputs.length ? `\n\nOutputs:\n\n\`\`\`\n${outputs.join("\n")}\n\`\`\`` : "";
    return `### ${title}\n\n${summary}${outputList}\n\n<details><summary>Details</summary>\n\n${table}\n\n</details>\n`;
  }
  const lines = [`${title}:`];
  if (diff.changes.length === 0 && outputs.length === 0) return `${lines[0]}\n  no changes\n`;
  lines.push(`  ${counts(diff)}.`, ...risks.map((r) => `  ${riskLine(r)}`), "", "Details:");
  for (const c of diff.changes) {
    lines.push(`  ${SYMBOL[c.op].padEnd(2)} ${c.op.padEnd(7)} ${c.type}  ${c.name}`);
    for (const d of details(c)) lines.push(`        ${d}`);
  }
  if (outputs.length) lines.push("", "Outputs:", ...outputs.map((o) => `  ${o}`));
  return lines.join("\n") + "\n";
}

/** True when the diff holds a change that must not be applied (exit code 1). */
export const hasErrors = (diff: PlanDiff, options: RiskOptions = {}): boolean =>
  assessRisks(diff, options).some((r) => r.level === "error");

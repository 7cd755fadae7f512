/** The resource tree as `pulumi preview` shows it, and a summary line per resource type. */
import type { PlannedResource } from "./run";
import { byCodePoint } from "../../components/codePointOrder";

export function renderTree(resources: readonly PlannedResource[]): string[] {
  const children = new Map<string | null, PlannedResource[]>();
  for (const r of resources) {
    const siblings = children.get(r.parent) ?? [];
    siblings.push(r);
    children.set(r.parent, siblings);
  }
  const rows: [string, string][] = [];
  const walk = (parent: string | null, prefix: string) => {
    const list = (children.get(parent) ?? [])
      .slice()
      .sort((a, b) => byCodePoint(a.type, b.type) || byCodePoint(a.name, b.name));
    list.forEach((r, i) => {
      const last = i === list.length - 1;
      const branch = parent === null ? "" : `${prefix}${last ? "└─ " : "├─ "}`;
      rows.push([`${branch}${r.type}`, r.name]);
      walk(r.urn, parent === null ? "" : `${prefix}${last ? "   " : "│  "}`);
    });
  };
  walk(null, "");
  const width = Math.max(4, ...rows.map(([t]) => t.length)) + 2;
  return [`    ${"Type".padEnd(width)}Name`, ...rows.map(([type, name]) => ` +  ${type.padEnd(width)}${name}`)];
}

/** Count per resource type, most common first. */
export function countByType(resources: readonly PlannedResource[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const r of resources) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]));
}

export function renderSummary(resources: readonly PlannedResource[]): string {
  const parts = countByType(resources).map(([type, n]) => `    ${String(n).padStart(3)} ${type}`);
  return [`Resources: ${resources.length} to create`, ...parts].join("\n");
}

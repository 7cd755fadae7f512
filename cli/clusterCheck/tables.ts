/**
 * The cluster check's text, as kOps prints `validate cluster` and `get instancegroups`: a heading per
 * section, a table with upper-case column names, and a last line with the verdict. Pure.
 */
import type { InstanceGroupRow } from "./instanceGroupListing";
import type { Verdict } from "./verdict";

/** Columns padded to their widest cell, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

export const errorCount = (n: number): string => (n === 1 ? "1 error" : `${n} errors`);

const opt = (value: number | string | undefined) => (value === undefined || value === "" ? "-" : String(value));

export function instanceGroupsTable(rows: InstanceGroupRow[]): string {
  return table(
    ["NAME", "ROLE", "MACHINETYPE", "MIN", "MAX", "ZONES", "TEMPLATE VERSION", "IN SERVICE", "NEED UPDATE", "NOTE"],
    rows.map((r) => [
      r.name,
      r.role,
      opt(r.instanceType),
      opt(r.minSize),
      opt(r.maxSize),
      r.zones.join(","),
      opt(r.templateVersion),
      r.desired === undefined ? String(r.inService) : `${r.inService}/${r.desired}`,
      String(r.needUpdate),
      r.note ?? "",
    ]),
  );
}

/** The verdict's sections: node groups, nodes, ENI addresses (ENI mode), then the failures or that all is well. */
export function verdictText(clusterName: string, verdict: Verdict): string {
  const sections: string[] = [];
  if (verdict.groups.length > 0)
    sections.push(
      `NODE GROUPS\n${table(
        ["NAME", "ROLE", "MIN", "MAX", "MACHINES", "NODES", "READY"],
        verdict.groups.map((g) => [
          g.name,
          g.role,
          String(g.minSize),
          String(g.maxSize),
          opt(g.machines),
          String(g.nodes),
          String(g.ready),
        ]),
      )}`,
    );
  if (verdict.nodes.length > 0)
    sections.push(
      `NODE STATUS\n${table(
        ["NAME", "ROLE", "GROUP", "ZONE", "READY"],
        verdict.nodes.map((n) => [n.name, n.role, opt(n.group), opt(n.zone), n.ready ? "True" : "False"]),
      )}`,
    );
  if (verdict.eni)
    sections.push(
      `ENI ADDRESSES\n${table(
        ["NODE", "ENIS", "IPS", "USED", "FREE"],
        verdict.eni.map((e) => [e.node, String(e.enis), String(e.ips), String(e.used), String(e.free)]),
      )}`,
    );
  if (verdict.healthy) sections.push(`Your cluster ${clusterName} is ready`);
  else
    sections.push(
      `VALIDATION ERRORS\n${table(
        ["KIND", "NAME", "MESSAGE"],
        verdict.failures.map((f) => [f.kind, f.name, f.message]),
      )}`,
      `Validation failed: ${errorCount(verdict.failures.length)}`,
    );
  return `${sections.join("\n\n")}\n`;
}

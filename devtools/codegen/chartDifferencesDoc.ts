/**
 * The section of docs/cilium.md that lists the program's reviewed differences from Cilium's chart, one line
 * per reason with the paths it explains, from components/cilium/chartDifferences.ts: the parity test and the
 * docs read the one list.
 */
import { INTENDED_DIFFERENCES } from "../../components/cilium/chartDifferences";

const BEGIN = "<!-- generated from components/cilium/chartDifferences.ts by `npm run generate` -->";
const END = "<!-- end of the generated differences -->";

export function renderChartDifferences(): string {
  const byReason = new Map<string, string[]>();
  for (const d of INTENDED_DIFFERENCES) byReason.set(d.reason, [...(byReason.get(d.reason) ?? []), d.path]);
  return [...byReason].map(([reason, paths]) => `- ${paths.map((p) => `\`${p}\``).join(", ")}: ${reason}`).join("\n");
}

/** `doc` (docs/cilium.md) with its generated section rewritten. */
export function withChartDifferences(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/cilium.md lacks its generated section (${BEGIN} … ${END})`);
  return `${doc.slice(0, start + BEGIN.length)}\n\n${renderChartDifferences()}\n\n${doc.slice(end)}`;
}

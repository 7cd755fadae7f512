/**
 * The sections of the docs that list the add-ons' reviewed differences from their charts, one line per reason
 * with the paths it explains, from each add-on's `chartDifferences` in the registry (components/features.ts):
 * the parity tests and the docs read the same lists. docs/cilium.md lists Cilium's, docs/aws-addons.md the
 * other add-ons', each under its name.
 */
import { ADDONS } from "../../components/features";
import type { IntendedDifference } from "../../components/k8s/chartDifference";

const BEGIN = "<!-- generated from the add-ons' chartDifferences by `npm run generate` -->";
const END = "<!-- end of the generated differences -->";

function renderList(list: readonly IntendedDifference[]): string {
  const byReason = new Map<string, string[]>();
  for (const d of list) byReason.set(d.reason, [...(byReason.get(d.reason) ?? []), d.path]);
  return [...byReason].map(([reason, paths]) => `- ${paths.map((p) => `\`${p}\``).join(", ")}: ${reason}`).join("\n");
}

/** Cilium's differences, for docs/cilium.md. */
export function renderCiliumDifferences(): string {
  return renderList(ADDONS.find((addon) => addon.name === "cilium")!.chartDifferences);
}

/** Every other add-on's, each under its name, for docs/aws-addons.md. */
export function renderAwsAddonDifferences(): string {
  return ADDONS.filter((addon) => addon.name !== "cilium")
    .map((addon) => `\`${addon.name}\`:\n\n${renderList(addon.chartDifferences)}`)
    .join("\n\n");
}

/** `doc` with its generated section (between the markers) rewritten to `body`. */
export function withDifferences(doc: string, file: string, body: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} lacks its generated section (${BEGIN} … ${END})`);
  return `${doc.slice(0, start + BEGIN.length)}\n\n${body}\n\n${doc.slice(end)}`;
}

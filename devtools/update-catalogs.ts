/**
 * `npm run update-catalogs`: records what validation checks against that changes upstream: the Kubernetes
 * releases (from the Go module proxy), the option names of each shipped Cilium line (from the chart in
 * tests/oracles/cilium-charts and the release's flag reference on the Go module proxy), and EC2 instance
 * types' facts (EC2's DescribeInstanceTypes, as the emulator's moto records it). Needs the network and the
 * box's Python packages (pip install -r tests/box/aws/requirements.txt); tests never run it, but check the
 * Cilium record against the charts.
 */
import { writeFileSync } from "fs";
import { join } from "path";
import { format, resolveConfig } from "prettier";
import { CILIUM_LINES } from "../catalogs/ciliumVersions";
import { chartConfigKeys, releaseFlags } from "./catalogSources/ciliumOptionsSource";
import { fetchKubernetesReleases } from "./catalogSources/kubernetesReleasesSource";
import { describedInstanceTypes } from "./catalogSources/instanceTypesSource";

const root = join(__dirname, "..");

/** Writes a record in the repository's code style, so that `npm run lint` passes on it as written. */
async function writeRecord(name: string, lines: string[]): Promise<void> {
  const file = join(root, "catalogs", "recorded", name);
  const options = await resolveConfig(file);
  writeFileSync(file, await format(lines.join("\n"), { ...options, filepath: file }));
}

async function recordKubernetesReleases(): Promise<void> {
  const releases = await fetchKubernetesReleases();
  const lines = releases.map((r) =>
    r.date ? `  { version: "${r.version}", date: "${r.date}" },` : `  { version: "${r.version}" },`,
  );
  await writeRecord("kubernetesReleasesRecord.ts", [
    "// Written by `npm run update-catalogs` from https://proxy.golang.org/k8s.io/kubernetes/@v/ (vX.Y.Z.info).",
    'import type { KubernetesRelease } from "../kubernetesReleases";',
    "",
    "export const KUBERNETES_RELEASES: readonly KubernetesRelease[] = [",
    ...lines,
    "];",
  ]);
  console.log(`recorded ${releases.length} Kubernetes releases`);
}

/** Per shipped line, from the release whose chart is at hand: one option per line of the record. */
async function recordCiliumOptions(): Promise<void> {
  const linesOf = new Map<string, string[]>();
  const sources: string[] = [];
  for (const line of CILIUM_LINES) {
    const release = line.releases.find((r) => r.digests)!.version;
    const chart = `tests/oracles/cilium-charts/cilium-${release.slice(1)}.tgz`;
    const { flags, readFrom } = await releaseFlags(release);
    for (const option of new Set([...chartConfigKeys(join(root, chart)), ...flags]))
      linesOf.set(option, [...(linesOf.get(option) ?? []), line.line]);
    sources.push(
      `  "${line.line}": { chart: "${chart}", flags: "Documentation/cmdref of github.com/cilium/cilium@${readFrom} (Go module proxy)" },`,
    );
  }
  const options = [...linesOf].sort(([a], [b]) => a.localeCompare(b));
  await writeRecord("ciliumOptionsRecord.ts", [
    "// Written by `npm run update-catalogs`: per option name, the shipped Cilium lines that read it from cilium-config.",
    'import type { CiliumOptionSource } from "../ciliumOptions";',
    "",
    "export const CILIUM_OPTION_SOURCES: Readonly<Record<string, CiliumOptionSource>> = {",
    ...sources,
    "};",
    "",
    "export const CILIUM_OPTIONS: Readonly<Record<string, readonly string[]>> = {",
    ...options.map(([option, lines]) => `  "${option}": [${lines.map((l) => `"${l}"`).join(", ")}],`),
    "};",
  ]);
  console.log(`recorded ${options.length} Cilium options`);
}

async function recordInstanceTypes(): Promise<void> {
  const { facts, source } = describedInstanceTypes();
  const types = Object.keys(facts).sort();
  await writeRecord("instanceTypeFactsRecord.ts", [
    `// Written by \`npm run update-catalogs\` from EC2's DescribeInstanceTypes (${source}).`,
    'import type { InstanceTypeFact } from "../instanceTypes";',
    "",
    "export const INSTANCE_TYPE_FACTS: Readonly<Record<string, InstanceTypeFact>> = {",
    ...types.map((t) => `  "${t}": [${facts[t].join(", ")}],`),
    "};",
  ]);
  console.log(`recorded ${types.length} instance types`);
}

const RECORDS: Record<string, () => Promise<void>> = {
  kubernetes: recordKubernetesReleases,
  cilium: recordCiliumOptions,
  "instance-types": recordInstanceTypes,
};

/** Every record, or those named (`npm run update-catalogs -- instance-types`). */
async function main(): Promise<void> {
  const named = process.argv.slice(2);
  const unknown = named.filter((n) => !(n in RECORDS));
  if (unknown.length > 0)
    throw new Error(`no record ${unknown.join(", ")}: the records are ${Object.keys(RECORDS).join(", ")}`);
  for (const name of named.length > 0 ? named : Object.keys(RECORDS)) await RECORDS[name]();
}

main().catch((err: unknown) => {
  console.error(`update-catalogs failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

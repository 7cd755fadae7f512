/**
 * `npm run update-catalogs`: records what validation checks against that changes upstream: the Kubernetes
 * releases (from the Go module proxy) and the option names of each shipped Cilium line (from the chart in
 * tests/oracles/cilium-charts and the release's flag reference on the Go module proxy). Needs the network;
 * tests never run it, but check the Cilium record against the charts.
 */
import { writeFileSync } from "fs";
import { join } from "path";
import { format, resolveConfig } from "prettier";
import { CILIUM_LINES } from "../catalogs/ciliumVersions";
import { chartConfigKeys, releaseFlags } from "./catalogSources/ciliumOptionsSource";
import { fetchKubernetesReleases } from "./catalogSources/kubernetesReleasesSource";

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

async function main(): Promise<void> {
  await recordKubernetesReleases();
  await recordCiliumOptions();
}

main().catch((err: unknown) => {
  console.error(`update-catalogs failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

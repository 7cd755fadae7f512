/**
 * The option names a Cilium release reads from `cilium-config`: the keys its Helm chart writes there, and
 * the flags of the agent and of the operators (both read the ConfigMap as a directory of flag values). The
 * flags come from the release's `Documentation/cmdref/*.md` (generated from the binaries' flag sets), read
 * from the release's module zip on the Go module proxy.
 */
import { execFileSync } from "child_process";
import { unzipSync } from "fflate";

const PROXY = "https://proxy.golang.org/github.com/cilium/cilium/@v";
const CMDREFS = ["cilium-agent.md", "cilium-operator-aws.md", "cilium-operator-generic.md"];

/** The keys the chart's `cilium-config` template writes (its `data:` block, keys at two spaces). */
export function chartConfigKeys(chartFile: string): string[] {
  const template = execFileSync("tar", ["-xzOf", chartFile, "cilium/templates/cilium-configmap.yaml"], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = template.split("\n");
  const start = lines.findIndex((l) => l === "data:");
  const end = lines.findIndex((l, i) => i > start && l === "---");
  const keys = lines.slice(start + 1, end).flatMap((l) => /^ {2}([a-z0-9][a-z0-9-]*):/.exec(l)?.[1] ?? []);
  return [...new Set(keys)].sort();
}

/** The long flags a cmdref page lists (`--help` is no option). */
export function cmdrefFlags(markdown: string): string[] {
  const flags = markdown.split("\n").flatMap((l) => /^ +(?:-\w, +)?--([a-z0-9][a-z0-9-]*)/.exec(l)?.[1] ?? []);
  return flags.filter((f) => f !== "help");
}

async function moduleZip(version: string): Promise<Uint8Array | undefined> {
  const response = await fetch(`${PROXY}/${version}.zip`);
  // The proxy answers 404 or 410 for a version it does not know; a mirror of it may answer 403.
  if ([403, 404, 410].includes(response.status)) return undefined;
  if (!response.ok) throw new Error(`${PROXY}/${version}.zip: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * The flags of a release's agent and operators, from its module zip; where the proxy lacks that release,
 * from the nearest earlier patch it has (flags change between minors, not patches). Says which it read.
 */
export async function releaseFlags(version: string): Promise<{ flags: string[]; readFrom: string }> {
  const [major, minor, patch] = version.slice(1).split(".").map(Number);
  for (let p = patch; p >= 0; p--) {
    const readFrom = `v${major}.${minor}.${p}`;
    const zip = await moduleZip(readFrom);
    if (!zip) continue;
    const prefix = `github.com/cilium/cilium@${readFrom}/Documentation/cmdref/`;
    const files = unzipSync(zip, { filter: (f) => CMDREFS.some((page) => f.name === `${prefix}${page}`) });
    const pages = CMDREFS.map((page) => files[`${prefix}${page}`]);
    if (pages.some((page) => !page)) throw new Error(`${readFrom}: the module zip lacks ${CMDREFS.join(", ")}`);
    const flags = [...new Set(pages.flatMap((page) => cmdrefFlags(new TextDecoder().decode(page))))].sort();
    return { flags, readFrom };
  }
  throw new Error(`${PROXY}: no ${major}.${minor} release at or before ${version}`);
}

/**
 * The Kubernetes releases that exist, from the Go module proxy's record of `k8s.io/kubernetes` (every tag of
 * kubernetes/kubernetes is a module version there, with the time it was tagged). The proxy's `@v/list` is
 * not complete, so each minor from the oldest one a shipped Cilium line supports is walked patch by patch
 * until the proxy knows no more.
 */
import { supportedKubernetesRange } from "../../catalogs/ciliumVersions";
import type { KubernetesRelease } from "../../catalogs/kubernetesReleases";

const PROXY = "https://proxy.golang.org/k8s.io/kubernetes/@v";

/** The day a version was tagged, or undefined when the proxy knows no such version. */
async function taggedOn(version: string): Promise<string | undefined> {
  const response = await fetch(`${PROXY}/v${version}.info`);
  // The proxy answers 404 or 410 for a version it does not know; a mirror of it may answer 403.
  if ([403, 404, 410].includes(response.status)) return undefined;
  if (!response.ok) throw new Error(`${PROXY}/v${version}.info: HTTP ${response.status}`);
  const info = (await response.json()) as { Time: string };
  return info.Time.slice(0, 10);
}

/** Misses in a row after which a minor has no more patches (a mirror of the proxy may lack single versions). */
const MISSES = 3;

async function releasesOfMinor(minor: number): Promise<KubernetesRelease[]> {
  const found: KubernetesRelease[] = [];
  for (let patch = 0, misses = 0; misses < MISSES; patch++) {
    const version = `1.${minor}.${patch}`;
    const date = await taggedOn(version);
    misses = date ? 0 : misses + 1;
    if (date) found.push({ version, date });
  }
  // Patches are released without gaps: one below a found patch exists even where the source did not answer.
  const newest = found.length === 0 ? -1 : Number(found[found.length - 1].version.split(".")[2]);
  return Array.from({ length: newest + 1 }, (_, patch) => {
    const version = `1.${minor}.${patch}`;
    return found.find((r) => r.version === version) ?? { version };
  });
}

export async function fetchKubernetesReleases(): Promise<KubernetesRelease[]> {
  const listed = (await (await fetch(`${PROXY}/list`)).text()).split("\n");
  const newestMinor = Math.max(
    ...listed
      .map((v) => /^v1\.(\d+)\.\d+$/.exec(v)?.[1])
      .filter(Boolean)
      .map(Number),
  );
  const minors = [];
  for (let minor = supportedKubernetesRange().oldest; minor <= newestMinor; minor++) minors.push(minor);
  return (await Promise.all(minors.map(releasesOfMinor))).flat();
}

/**
 * The Cilium release lines this program ships manifests for, each with the newest patch confirmed
 * released and the Kubernetes minors Cilium's own compatibility matrix lists as tested for it.
 */
export interface CiliumLine {
  /** `major.minor`, e.g. `1.19`. */
  line: string;
  /** The newest released patch we pin by default on this line. */
  latestPatch: string;
  /** Oldest and newest Kubernetes minor (`1.NN`) the line supports. */
  kubernetes: { oldest: number; newest: number };
}

export const CILIUM_LINES: readonly CiliumLine[] = [
  { line: "1.18", latestPatch: "v1.18.14", kubernetes: { oldest: 30, newest: 33 } },
  { line: "1.19", latestPatch: "v1.19.8", kubernetes: { oldest: 31, newest: 34 } },
];

export const DEFAULT_CILIUM_VERSION = "v1.19.8";
export const DEFAULT_KUBERNETES_VERSION = "1.33.5";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export interface Semver {
  major: number;
  minor: number;
  patch: number;
}

/** Parses `X.Y.Z` (optionally with pre-release/build suffixes); undefined when malformed. */
export function parseSemver(text: string): Semver | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** The shipped line a `v`-prefixed Cilium version belongs to, if any. */
export function ciliumLineOf(version: string): CiliumLine | undefined {
  const parsed = parseSemver(version.replace(/^v/, ""));
  if (!parsed) return undefined;
  return CILIUM_LINES.find((l) => l.line === `${parsed.major}.${parsed.minor}`);
}

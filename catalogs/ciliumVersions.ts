/**
 * The Cilium ↔ Kubernetes table, in one place: the Cilium release lines this program ships manifests for,
 * the releases of each line known to exist (with their sources, and the image digests of the published
 * chart where the chart is at hand), and the Kubernetes minors Cilium's compatibility matrix lists for the
 * line. Every version the program defaults to or accepts comes from here.
 */
export interface ImageDigests {
  agent: string;
  operatorGeneric: string;
  operatorAws: string;
  hubbleRelay: string;
  /** certgen, which makes Hubble's certificates, is versioned apart: the chart's whole reference, tag and digest. */
  certgen: string;
}

export interface CiliumRelease {
  /** `vX.Y.Z`. */
  version: string;
  /** Where the release is shown to exist. */
  source: string;
  /** The digests the release's published chart pins its images by, when the chart is at hand. */
  digests?: ImageDigests;
}

export interface CiliumLine {
  /** `major.minor`, e.g. `1.19`. */
  line: string;
  /** Oldest and newest Kubernetes minor (`1.NN`) the line supports. */
  kubernetes: { oldest: number; newest: number };
  /** Where the Kubernetes range comes from. */
  kubernetesSource: string;
  /** Releases known to exist, oldest first; the last is the line's newest recorded patch. */
  releases: readonly CiliumRelease[];
}

const CHART = (version: string) => `the published chart cilium-${version}.tgz (https://helm.cilium.io)`;

export const CILIUM_LINES: readonly CiliumLine[] = [
  {
    line: "1.18",
    kubernetes: { oldest: 30, newest: 33 },
    kubernetesSource: "Cilium v1.18.14 Documentation/network/kubernetes/compatibility.rst",
    releases: [
      {
        version: "v1.18.12",
        source: CHART("1.18.12"),
        digests: {
          agent: "sha256:94149589d9b77fe3a78f900121b36fab51b1ede0c4190924e2328facc37de210",
          operatorGeneric: "sha256:86899c73438812b2761ac6fa435ea4e65f68e70d1ae54ac806fec8805d1ce011",
          operatorAws: "sha256:da54cc50e76e6439205c2816b29a791c09584de5f60a39ae2821d471eabe78f8",
          hubbleRelay: "sha256:308b186791faf8a8a9322ce64d2e12f66fa82a3f4659e7a79b31829b6195df61",
          certgen:
            "quay.io/cilium/certgen:v0.4.6@sha256:511cedee817713fdf72db7e32fffb4b90da7747661b95180064f18198877626c",
        },
      },
      { version: "v1.18.14", source: "Cilium release v1.18.14, 2026-09-16 (github.com/cilium/cilium/releases)" },
    ],
  },
  {
    line: "1.19",
    kubernetes: { oldest: 32, newest: 35 },
    kubernetesSource:
      "Cilium v1.19.3 Documentation/network/kubernetes/compatibility.rst (lists 1.32, 1.33, 1.34, 1.35), as mirrored at contextqmd.com/libraries/cilium/versions/1.19.3",
    releases: [
      {
        version: "v1.19.6",
        source: CHART("1.19.6"),
        digests: {
          agent: "sha256:0df5b2750b64c49843aba1d649e9eaf61467cb0645ad3171db6f6962c095ac92",
          operatorGeneric: "sha256:0db4ca4e06969d8904ee036617795d0e9c3228cf7b8d902ba74fc2bb98d2d665",
          operatorAws: "sha256:546d13ac511cf82441b5e9e99e03d0e054b788513ceb1a883e620b8284d5ccc3",
          hubbleRelay: "sha256:6782a49e3f28eba015701c4410a5ec7fa096fe9a562f879b4372dbecd827ea44",
          certgen:
            "quay.io/cilium/certgen:v0.4.6@sha256:511cedee817713fdf72db7e32fffb4b90da7747661b95180064f18198877626c",
        },
      },
      { version: "v1.19.8", source: "Cilium release v1.19.8, 2026-09 (github.com/cilium/cilium/releases)" },
    ],
  },
  {
    line: "1.20",
    kubernetes: { oldest: 33, newest: 36 },
    kubernetesSource:
      "e2e-tested minors as reported for v1.20 by thaum-xyz PR #1054 (Cilium's own compatibility.rst at a v1.20.x tag not at hand; re-check when it is)",
    releases: [
      {
        version: "v1.20.0",
        source: CHART("1.20.0"),
        digests: {
          agent: "sha256:383968cd5e8873f7976fa76aa6196045643558f4cc9518a207b9335cb24a0e93",
          operatorGeneric: "sha256:80744a8cc7c91c2f9e6347629406844eb35d79b30a732c6d41c15b17232a74f3",
          operatorAws: "sha256:a0e50fa611fa3e2e8b1c9521a3e813576034a0b3d626e9c128ac01f8f7dfd0fa",
          hubbleRelay: "sha256:2ca16981c7eb98df0ba9c9d18896bb9ca628b5cbd40dc9801339f4741f91ee94",
          certgen:
            "quay.io/cilium/certgen:v0.4.8@sha256:e65f1d15a0ffaf2df32797c8ad1c797fc64dad11c274cd96a2eafa89d712cdc3",
        },
      },
      { version: "v1.20.2", source: "Cilium release v1.20.2, 2026-09-22 (github.com/cilium/cilium/releases)" },
    ],
  },
];

/** A Kubernetes release that exists and is supported upstream; the tests build its kubeadm, API server, controller manager and scheduler (tools/kubernetes/). */
export const DEFAULT_KUBERNETES_VERSION = "1.35.4";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export interface Semver {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release or build suffix (`-rc.1`, `+abc`), empty for a release. */
  suffix: string;
}

/** Parses `X.Y.Z` (optionally with pre-release/build suffixes); undefined when malformed. */
export function parseSemver(text: string): Semver | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  const core = `${match[1]}.${match[2]}.${match[3]}`;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), suffix: text.slice(core.length) };
}

/** The shipped line a `v`-prefixed Cilium version belongs to, if any. */
export function ciliumLineOf(version: string): CiliumLine | undefined {
  const parsed = parseSemver(version.replace(/^v/, ""));
  if (!parsed) return undefined;
  return CILIUM_LINES.find((l) => l.line === `${parsed.major}.${parsed.minor}`);
}

export function newestRelease(line: CiliumLine): CiliumRelease {
  return line.releases[line.releases.length - 1];
}

/** The release entry of an exact version, when it is recorded. */
export function recordedRelease(version: string): CiliumRelease | undefined {
  return ciliumLineOf(version)?.releases.find((r) => r.version === version);
}

/** Whether a line supports a Kubernetes `X.Y.Z`. */
export function supportsKubernetes(line: CiliumLine, kubernetesVersion: string): boolean {
  const parsed = parseSemver(kubernetesVersion);
  return (
    parsed !== undefined &&
    parsed.major === 1 &&
    parsed.minor >= line.kubernetes.oldest &&
    parsed.minor <= line.kubernetes.newest
  );
}

/** The lines that support a Kubernetes version, newest first. */
export function linesSupporting(kubernetesVersion: string): CiliumLine[] {
  return CILIUM_LINES.filter((l) => supportsKubernetes(l, kubernetesVersion)).reverse();
}

/**
 * The default `networking.cilium.version`: the newest recorded patch of the newest line that supports
 * `kubernetesVersion`; undefined when no line does (validation reports that on `kubernetesVersion`).
 */
export function defaultCiliumVersion(kubernetesVersion: string): string | undefined {
  const line = linesSupporting(kubernetesVersion)[0];
  return line && newestRelease(line).version;
}

/** The Kubernetes minors some shipped line supports. */
export function supportedKubernetesRange(): { oldest: number; newest: number } {
  return {
    oldest: Math.min(...CILIUM_LINES.map((l) => l.kubernetes.oldest)),
    newest: Math.max(...CILIUM_LINES.map((l) => l.kubernetes.newest)),
  };
}

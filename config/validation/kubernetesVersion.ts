/**
 * `kubernetesVersion` must name a release that exists: nodes install kubeadm and kubelet of exactly that
 * version at boot, and a release that does not exist fails there, after the cluster's resources are up.
 */
import { linesSupporting, parseSemver } from "../../catalogs/ciliumVersions";
import {
  isRecordedKubernetesRelease,
  newestPatch,
  recordedMinors,
  recordedUntil,
} from "../../catalogs/kubernetesReleases";
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

const FIELD = "kubernetesVersion";

/**
 * The minor a YAML number such as `1.30` was meant to be: YAML reads it as 1.3, and the Pulumi CLI passes
 * on "1.3", so the trailing zeros the user wrote are lost.
 */
function minorOfNumber(text: string): string | undefined {
  const minors = recordedMinors();
  for (let candidate = text; candidate.length <= text.length + 2; candidate += "0")
    if (minors.includes(candidate)) return candidate;
  return undefined;
}

export function validateKubernetesVersion(version: string): FieldError[] {
  if (/^1\.\d+$/.test(version)) {
    const minor = minorOfNumber(version);
    const patch = minor && newestPatch(minor);
    if (patch) {
      const lost =
        minor === version
          ? ""
          : `; YAML reads an unquoted ${minor} as the number ${version}: quote versions in the stack file`;
      const detail = `must be a Kubernetes release X.Y.Z such as ${patch.version} (the newest ${minor} release)${lost}`;
      return [withSuggestion(invalid(FIELD, version, detail), patch.version)];
    }
  }
  const parsed = parseSemver(version);
  if (!parsed || parsed.major !== 1 || parsed.suffix) {
    return [invalid(FIELD, version, "must be a Kubernetes release X.Y.Z such as 1.33.5, without a 'v'")];
  }
  // A minor no shipped Cilium line supports is reported with the Cilium rules, which name the minors to use.
  if (linesSupporting(version).length === 0 || isRecordedKubernetesRelease(version)) return [];
  // Every minor a shipped Cilium line supports has recorded releases (tests/config/catalogs.test.ts).
  const newest = newestPatch(`1.${parsed.minor}`)!.version;
  return [
    withSuggestion(
      invalid(
        FIELD,
        version,
        `not a Kubernetes release: the newest 1.${parsed.minor} release is ${newest} ` +
          `(recorded until ${recordedUntil()}; npm run update-catalogs records newer ones)`,
      ),
      newest,
    ),
  ];
}

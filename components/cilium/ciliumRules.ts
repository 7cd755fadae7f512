/** The Cilium rules: kOps's `validateNetworkingCilium`, plus what the Cilium versions we ship need. */
import {
  CILIUM_LINES,
  ciliumLineOf,
  defaultCiliumVersion,
  linesSupporting,
  newestRelease,
  parseSemver,
  supportedKubernetesRange,
  supportsKubernetes,
} from "../../catalogs/ciliumVersions";
import { newestPatch } from "../../catalogs/kubernetesReleases";
import type { ClusterSpec } from "../../config/types";
import { child, FieldError, forbidden, invalid, withSuggestion } from "../../config/validation/fieldErrors";
import { eniMode } from "../../config/eniMode";

export function validateCilium(spec: ClusterSpec, path = "networking.cilium"): FieldError[] {
  const cilium = spec.networking.cilium;
  const errors: FieldError[] = [...validateVersion(spec, child(path, "version"))];

  if (cilium.enableNodePort && spec.kubeProxy.enabled) {
    const e = forbidden("kubeProxy.enabled", "When Cilium NodePort is enabled, kubeProxy must be disabled");
    errors.push(withSuggestion(e, "false"));
  }
  if (!cilium.enableNodePort && !spec.kubeProxy.enabled) {
    const detail = "with kube-proxy disabled, Cilium must replace it (enableNodePort: true), or Services do not work";
    errors.push(withSuggestion(forbidden(child(path, "enableNodePort"), detail), "true"));
  }

  if (eniMode(cilium)) {
    if (!cilium.disableMasquerade) {
      const e = forbidden(child(path, "disableMasquerade"), "Masquerade must be disabled when ENI IPAM is used");
      errors.push(withSuggestion(e, "true"));
    }
    if (cilium.tunnel !== "disabled") {
      const detail = 'Cilium ENI IPAM needs native routing: tunnel must be "disabled" (or unset)';
      errors.push(withSuggestion(forbidden(child(path, "tunnel"), detail), "disabled"));
    }
    if (spec.topology !== "private") {
      const detail =
        "Cilium ENI IPAM needs the private topology: with masquerade disabled, pods in public subnets have no route to the internet";
      errors.push(withSuggestion(forbidden("topology", detail), "private"));
    }
  }

  if (!eniMode(cilium) && cilium.disableMasquerade) {
    // The other modes' pods have addresses the VPC does not route (a tunnel carries them between nodes):
    // their traffic leaves the cluster only behind their node's address.
    const detail =
      'pod addresses are routable in the VPC only with ipam "eni": with masquerade disabled, pods reach nothing outside the cluster';
    errors.push({
      ...withSuggestion(forbidden(child(path, "disableMasquerade"), detail), "false"),
      reads: [child(path, "ipam")],
    });
  }
  if (!eniMode(cilium) && cilium.tunnel === "disabled") {
    const detail = 'native routing needs ipam "eni" on AWS: the VPC does not route pod addresses from other IPAM modes';
    errors.push(withSuggestion(forbidden(child(path, "tunnel"), detail), "vxlan"));
  }

  return errors;
}

/**
 * `kubernetesVersion` must be supported by some shipped line (else the error is on `kubernetesVersion`);
 * `networking.cilium.version` must be a release of a shipped line known to exist that supports it.
 */
function validateVersion(spec: ClusterSpec, path: string): FieldError[] {
  const version = spec.networking.cilium.version;
  const kubernetes = parseSemver(spec.kubernetesVersion);
  if (kubernetes && kubernetes.major === 1 && linesSupporting(spec.kubernetesVersion).length === 0) {
    const { oldest, newest } = supportedKubernetesRange();
    const detail = `no Cilium line this program ships supports Kubernetes 1.${kubernetes.minor}: use a minor from 1.${oldest} to 1.${newest}`;
    return [
      withSuggestion(invalid("kubernetesVersion", spec.kubernetesVersion, detail), newestPatch(`1.${newest}`)!.version),
    ];
  }
  // No default without a valid kubernetesVersion; its own error says what to fix.
  if (version === "" && !(kubernetes && kubernetes.major === 1)) return [];
  // The release a fix sets: the default for kubernetesVersion, or the newest of the version's own line.
  const fallback = defaultCiliumVersion(spec.kubernetesVersion);
  const bad = (detail: string, suggested = fallback) => {
    const e = invalid(path, version, detail);
    return [suggested ? withSuggestion(e, suggested) : e];
  };
  if (!version.startsWith("v")) return bad("Cilium version must be prefixed with 'v'", `v${version}`);
  const parsed = parseSemver(version.slice(1));
  if (!parsed) return bad("Could not parse as semantic version");
  const line = ciliumLineOf(version);
  if (!line) {
    const lines = CILIUM_LINES.map((l) => l.line).join(", ");
    return bad(`Only Cilium ${lines} are supported`);
  }
  const newest = newestRelease(line).version;
  if (parsed.suffix) return bad(`only releases are supported, such as ${newest}`, newest);
  if (parsed.patch > parseSemver(newest.slice(1))!.patch) {
    return bad(`not a release known to exist: the newest recorded ${line.line} release is ${newest}`, newest);
  }
  if (kubernetes && !supportsKubernetes(line, spec.kubernetesVersion)) {
    const { oldest, newest: newestMinor } = line.kubernetes;
    const supporting = linesSupporting(spec.kubernetesVersion)
      .map((l) => newestRelease(l).version)
      .join(" or ");
    return bad(
      `Cilium ${line.line} supports Kubernetes 1.${oldest} to 1.${newestMinor}, not kubernetesVersion ` +
        `${spec.kubernetesVersion}: use ${supporting}, or unset it for the default`,
    );
  }
  return [];
}

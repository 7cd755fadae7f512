/** The Cilium rules: the seed's `validateNetworkingCilium`, plus what the Cilium versions we ship need. */
import { CILIUM_LINES, ciliumLineOf, parseSemver } from "../ciliumVersions";
import type { ClusterSpec } from "../types";
import { child, FieldError, forbidden, invalid } from "./fieldErrors";

export function validateCilium(spec: ClusterSpec, path = "networking.cilium"): FieldError[] {
  const cilium = spec.networking.cilium;
  const errors: FieldError[] = [...validateVersion(spec, child(path, "version"))];

  if (cilium.enableNodePort && spec.kubeProxy.enabled) {
    errors.push(forbidden("kubeProxy.enabled", "When Cilium NodePort is enabled, kubeProxy must be disabled"));
  }
  if (!cilium.enableNodePort && !spec.kubeProxy.enabled) {
    errors.push(
      forbidden(
        child(path, "enableNodePort"),
        "with kube-proxy disabled, Cilium must replace it (enableNodePort: true), or Services do not work",
      ),
    );
  }

  if (cilium.ipam === "eni") {
    if (spec.cloudProvider !== "aws") {
      errors.push(forbidden(child(path, "ipam"), "Cilium ENI IPAM is supported only in AWS"));
    }
    if (!cilium.disableMasquerade) {
      errors.push(forbidden(child(path, "disableMasquerade"), "Masquerade must be disabled when ENI IPAM is used"));
    }
    if (cilium.tunnel !== "disabled") {
      errors.push(
        forbidden(child(path, "tunnel"), 'Cilium ENI IPAM needs native routing: tunnel must be "disabled" (or unset)'),
      );
    }
    if (spec.topology !== "private") {
      errors.push(
        forbidden(
          "topology",
          "Cilium ENI IPAM needs the private topology: with masquerade disabled, pods in public subnets have no route to the internet",
        ),
      );
    }
  }

  if (cilium.ipam !== "eni" && cilium.tunnel === "disabled") {
    errors.push(
      forbidden(
        child(path, "tunnel"),
        'native routing needs ipam "eni" on AWS: the VPC does not route pod addresses from other IPAM modes',
      ),
    );
  }

  for (const key of Object.keys(cilium.extraConfig)) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(key)) {
      errors.push(
        invalid(
          child(child(path, "extraConfig"), key),
          key,
          "must be a Cilium option name: lowercase letters, digits and '-'",
        ),
      );
    }
  }
  return errors;
}

function validateVersion(spec: ClusterSpec, path: string): FieldError[] {
  const version = spec.networking.cilium.version;
  if (!version.startsWith("v")) return [invalid(path, version, "Cilium version must be prefixed with 'v'")];
  if (!parseSemver(version.slice(1))) return [invalid(path, version, "Could not parse as semantic version")];
  const line = ciliumLineOf(version);
  if (!line) {
    const lines = CILIUM_LINES.map((l) => l.line).join(", ");
    return [invalid(path, version, `Only Cilium ${lines} are supported`)];
  }
  const kubernetes = parseSemver(spec.kubernetesVersion);
  const { oldest, newest } = line.kubernetes;
  if (kubernetes && (kubernetes.major !== 1 || kubernetes.minor < oldest || kubernetes.minor > newest)) {
    return [
      invalid(
        path,
        version,
        `Cilium ${line.line} supports Kubernetes 1.${oldest} to 1.${newest}, not kubernetesVersion ${spec.kubernetesVersion}`,
      ),
    ];
  }
  return [];
}

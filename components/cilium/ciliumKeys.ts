/**
 * Cilium's own keys under `networking.cilium`: the release, the IPAM mode and routing, masquerading,
 * kube-proxy replacement and `extraConfig`, with each option's keys from its module (features/) between
 * them. Cilium's entry gives them to the schema (config/featureKeys.ts, generated); the rules across them
 * that are more than "this key needs that value" are kOps's, in ciliumRules.ts, with what `extraConfig` may
 * set in extraConfigRules.ts.
 */
import {
  CILIUM_LINES,
  DEFAULT_KUBERNETES_VERSION,
  defaultCiliumVersion,
  newestRelease,
} from "../../catalogs/ciliumVersions";
import type { AnyField } from "../../config/schemaTypes";
import { CILIUM_FEATURES } from "./features/ciliumFeatures";

const shippedLines = CILIUM_LINES.map(
  (l) =>
    `${l.line} (Kubernetes 1.${l.kubernetes.oldest} to 1.${l.kubernetes.newest}, newest ${newestRelease(l).version})`,
).join(", ");

/** Cilium's core keys, before its options'. */
const CORE: Readonly<Record<string, AnyField>> = {
  version: {
    kind: "string",
    defaultText:
      "the newest recorded patch of the newest line that supports `kubernetesVersion` " +
      `(\`${defaultCiliumVersion(DEFAULT_KUBERNETES_VERSION)}\` for the default \`kubernetesVersion\`)`,
    description: `Cilium release of the agent and operator images. Shipped lines: ${shippedLines}.`,
    rules: [
      "`v`-prefixed release of a shipped line, no newer than its newest recorded patch",
      "the line must support `kubernetesVersion`",
    ],
  },
  ipam: {
    kind: "string",
    default: "",
    enum: ["", "crd", "eni"],
    description:
      '`""`: the default mode (host-scope: pod CIDRs from the controller manager, Cilium\'s `kubernetes` IPAM). ' +
      "`crd`: addresses from CiliumNode resources filled in by an external allocator. " +
      "`eni`: pods take secondary IPs of AWS ENIs that the Cilium operator attaches (AWS native networking).",
    rules: [
      "`eni` requires `disableMasquerade: true`",
      "`eni` requires native routing (`tunnel: disabled`) and the `private` topology",
    ],
  },
  disableMasquerade: {
    kind: "boolean",
    default: false,
    description:
      "Turns off masquerading of pod traffic to destinations outside the cluster behind the node's IP. " +
      "Required in ENI mode, where pod addresses are routable in the VPC.",
    rules: [
      "must be `true` when `ipam` is `eni`, and may be `true` only then (the VPC routes no other pod addresses, so pods would reach nothing outside the cluster)",
    ],
  },
  tunnel: {
    kind: "string",
    enum: ["vxlan", "geneve", "disabled"],
    defaultText: "`disabled` when `ipam` is `eni`, else `vxlan`",
    description: "Encapsulation of pod traffic between nodes (`vxlan`, `geneve`), or `disabled` for native routing.",
    rules: [
      "must be `disabled` when `ipam` is `eni`, and may be `disabled` only then (the VPC routes no other pod addresses)",
    ],
  },
  enableNodePort: {
    kind: "boolean",
    default: false,
    description: "Cilium replaces kube-proxy: eBPF handling of services, NodePort and host ports.",
    rules: ["requires `kubeProxy.enabled: false`", "required when `kubeProxy.enabled` is false"],
  },
};

/** Extra `cilium-config` keys, after its options'. */
const EXTRA_CONFIG: AnyField = {
  kind: "map",
  example: { "policy-audit-mode": "true" },
  description:
    "Extra `cilium-config` ConfigMap keys, applied last so they override what the program renders. Values are strings.",
  rules: [
    "keys are options the selected Cilium line reads: its chart's `cilium-config` keys and its agent's and operators' flags (catalogs/recorded/ciliumOptionsRecord.ts)",
    "keys the program sets from other config are not allowed (the error names the key to set instead)",
    "values must be strings",
  ],
};

/** Every option's keys; an option may not give a key another option or Cilium's core gives. */
function optionKeys(): Record<string, AnyField> {
  const keys: Record<string, AnyField> = {};
  for (const feature of CILIUM_FEATURES)
    for (const [key, field] of Object.entries(feature.schema)) {
      if (key in keys || key in CORE || key === "extraConfig")
        throw new Error(`Cilium option ${feature.name} gives ${key} twice`);
      keys[key] = field;
    }
  return keys;
}

export const CILIUM_KEYS: Readonly<Record<string, AnyField>> = {
  ...CORE,
  ...optionKeys(),
  extraConfig: EXTRA_CONFIG,
};

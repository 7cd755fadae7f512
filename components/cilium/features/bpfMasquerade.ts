/**
 * `networking.cilium.bpfMasquerade`: masquerading in eBPF instead of iptables. Unset is iptables
 * masquerading, as the chart leaves it unless `bpf.masquerade` is set. The agent refuses it without its
 * NodePort handling or with masquerading off (daemon/cmd/kube_proxy_replacement.go, daemon/cmd/daemon.go):
 * its two rules.
 */
import type { CiliumFeature } from "./ciliumFeatureShape";

const onCrd = { ipam: "crd", disableMasquerade: false, enableNodePort: true };

export const bpfMasquerade: CiliumFeature = {
  name: "bpfMasquerade",
  schema: {
    bpfMasquerade: {
      kind: "boolean",
      default: false,
      description:
        "Masquerades pod traffic leaving the cluster in eBPF instead of iptables (Cilium's `enable-bpf-masquerade`), " +
        "which saves the node's netfilter connection tracking for it.",
      rules: ["requires `enableNodePort: true`", "requires masquerading (`disableMasquerade: false`)"],
      requires: [
        {
          path: "networking.cilium.enableNodePort",
          equals: true,
          detail: "BPF masquerade requires NodePort (enableNodePort: true)",
          fix: "turnOff",
        },
        {
          path: "networking.cilium.disableMasquerade",
          equals: false,
          detail: "BPF masquerade requires masquerading (disableMasquerade: false)",
          fix: "turnOff",
        },
      ],
    },
  },
  managedKeys: { "enable-bpf-masquerade": "networking.cilium.bpfMasquerade" },
  config: (spec): Record<string, string> =>
    spec.networking.cilium.bpfMasquerade ? { "enable-bpf-masquerade": "true" } : {},
  chartValues: (spec) => (spec.networking.cilium.bpfMasquerade ? { bpf: { masquerade: true } } : {}),
  cases: {
    on: {
      "BPF masquerade": { networking: { cilium: { ...onCrd, bpfMasquerade: true } }, kubeProxy: { enabled: false } },
    },
    off: { networking: { cilium: { bpfMasquerade: false } } },
  },
};

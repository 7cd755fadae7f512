/**
 * `networking.cilium.bpfMasquerade`: masquerading in eBPF instead of iptables. Unset is iptables
 * masquerading, as the chart leaves it unless `bpf.masquerade` is set. The agent refuses it without its
 * NodePort handling or with masquerading off (config/validation/cilium.ts).
 */
import type { CiliumFeature } from "./ciliumFeatureShape";

const onCrd = { ipam: "crd", disableMasquerade: false, enableNodePort: true };

export const bpfMasquerade: CiliumFeature = {
  name: "bpfMasquerade",
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

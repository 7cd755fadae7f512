/** Every Cilium feature, listed once: each is a module of this folder (its shape: ciliumFeatureShape.ts). */
import { bpfMasquerade } from "./bpfMasquerade";
import type { CiliumFeature } from "./ciliumFeatureShape";
import { hubble } from "./hubble";

export const CILIUM_FEATURES: readonly CiliumFeature[] = [bpfMasquerade, hubble];

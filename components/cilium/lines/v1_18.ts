/** Cilium 1.18: the shared object set is complete. */
import type { CiliumLineManifests } from ".";

export const line118: CiliumLineManifests = {
  line: "1.18",
  extraObjects: () => [],
};

/** Cilium 1.18: the shared object set is complete. */
import type { CiliumLineManifests } from ".";
import { AGENT_CAPABILITIES_1_18 } from "./agentCapabilities";

export const line118: CiliumLineManifests = {
  line: "1.18",
  agent: { capabilities: AGENT_CAPABILITIES_1_18, namedHealthPort: false },
  extraObjects: () => [],
};

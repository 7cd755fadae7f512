/** Cilium 1.20: the objects of 1.19 (its ENI IPAM moved onto the multi-pool allocator inside the agent). */
import type { CiliumLineManifests } from ".";
import { line119 } from "./v1_19";

export const line120: CiliumLineManifests = { ...line119, line: "1.20" };

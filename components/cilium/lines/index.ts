/** The Cilium release lines the program renders, each module holding what only its line needs. */
import { ciliumLineOf } from "../../../spec/ciliumVersions";
import type { K8sObject } from "../k8sObject";
import { line118 } from "./v1_18";
import { line119 } from "./v1_19";
import { line120 } from "./v1_20";

/** How the chart of a line shapes the agent's pod. */
export interface AgentTraits {
  /** Capabilities of the agent container (non-privileged mode). */
  capabilities: string[];
  /** Capabilities of the `config` init container, when the line's chart grants any. */
  configInitCapabilities?: string[];
  /** The health endpoint is a declared container port named `health` that the probes refer to. */
  namedHealthPort: boolean;
}

export interface CiliumLineManifests {
  line: string;
  agent: AgentTraits;
  /** Objects this line needs beyond the set every line shares. */
  extraObjects(namespace: string): K8sObject[];
}

const LINES: Record<string, CiliumLineManifests> = {
  [line118.line]: line118,
  [line119.line]: line119,
  [line120.line]: line120,
};

export function manifestsFor(version: string): CiliumLineManifests {
  const line = ciliumLineOf(version);
  const manifests = line && LINES[line.line];
  if (!manifests) throw new Error(`no manifests for Cilium ${version}`); // validation rejects it first
  return manifests;
}

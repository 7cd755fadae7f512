/** The Cilium release lines the program renders, each module holding what only its line needs. */
import { ciliumLineOf } from "../../../catalogs/ciliumVersions";
import type { K8sObject } from "../../k8s/object";
import { line118 } from "./v1_18";
import { line119 } from "./v1_19";
import { line120 } from "./v1_20";

/** How the chart of a line shapes the agent's and operator's pods. */
export interface PodTraits {
  /** Capabilities of the agent container (non-privileged mode). */
  capabilities: string[];
  /** Capabilities of the `config` init container, when the line's chart grants any. */
  configInitCapabilities?: string[];
  /** The agent's and operator's health endpoints are declared container ports named `health`, which the probes use. */
  namedHealthPort: boolean;
  /** The shell the `mount-cgroup` and `apply-sysctl-overwrites` init containers run. */
  initShell: "sh" | "bash";
  /** Arguments of the `config` init container after `cilium-dbg build-config`. */
  configInitArgs?: string[];
  /** The `install-cni-binaries` init container has resource limits. */
  installCniLimits: boolean;
  /** Pods say `hostUsers: true` (they run in the host's user namespace). */
  hostUsers?: boolean;
}

export interface CiliumLineManifests {
  line: string;
  pods: PodTraits;
  /** The `cilium-config` keys the line's chart renders at its defaults. */
  config: Readonly<Record<string, string>>;
  /** Keys the line's chart renders only when kube-proxy runs (kube-proxy replacement off). */
  kubeProxyConfig?: Readonly<Record<string, string>>;
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

/** The Cilium release lines with objects of their own; each module renders what only its line needs. */
import { ciliumLineOf } from "../../../spec/ciliumVersions";
import type { K8sObject } from "../../k8s/object";
import { line118 } from "./v1_18";
import { line119 } from "./v1_19";

export interface CiliumLineManifests {
  line: string;
  /** Objects this line needs beyond the set every line shares. */
  extraObjects(namespace: string): K8sObject[];
}

const LINES: Record<string, CiliumLineManifests> = { [line118.line]: line118, [line119.line]: line119 };

export function manifestsFor(version: string): CiliumLineManifests {
  const line = ciliumLineOf(version);
  const manifests = line && LINES[line.line];
  if (!manifests) throw new Error(`no manifests for Cilium ${version}`); // validation rejects it first
  return manifests;
}

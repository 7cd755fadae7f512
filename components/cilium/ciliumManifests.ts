/**
 * Every Kubernetes object of the Cilium addon for a spec, in dependency order (accounts, RBAC and the
 * ConfigMap before the workloads). Pure; CiliumAddon declares what this returns.
 */
import { recordedRelease } from "../../catalogs/ciliumVersions";
import type { CiliumSpec } from "./ciliumSpec";
import { agentDaemonSet } from "./agent";
import { configChecksum, renderCiliumConfig } from "./configMap";
import type { K8sObject } from "../k8s/object";
import type { StagedObjects } from "../k8s/stages";
import { manifestsFor } from "./lines/releaseLines";
import { operatorObjects } from "./operator";
import { rbac, serviceAccounts } from "./ciliumRbac";
import type { WorkloadContext } from "./workloadContext";
import { eniMode } from "../../config/eniMode";
import type { AgentAdditions } from "./features/ciliumFeatureShape";
import { CILIUM_FEATURES } from "./features/ciliumFeatures";

export const CILIUM_NAMESPACE = "kube-system";
const REGISTRY = "quay.io/cilium";
const pin = (digest: string | undefined) => (digest ? `@${digest}` : "");

export interface CiliumManifests extends StagedObjects {
  configChecksum: string;
}

/** The operator image that implements the IPAM mode: `operator-aws` for ENI, `operator-generic` else. */
export function operatorVariant(spec: CiliumSpec): "aws" | "generic" {
  return eniMode(spec.networking.cilium) ? "aws" : "generic";
}

/** What the features add to the agent's pod, in the list's order. */
function agentAdditions(spec: CiliumSpec): AgentAdditions {
  const added = CILIUM_FEATURES.flatMap((feature) => (feature.agent ? [feature.agent(spec)] : []));
  return {
    ports: added.flatMap((a) => a.ports),
    volumeMounts: added.flatMap((a) => a.volumeMounts),
    volumes: added.flatMap((a) => a.volumes),
  };
}

export function renderCiliumManifests(spec: CiliumSpec, apiEndpoint: string): CiliumManifests {
  const namespace = CILIUM_NAMESPACE;
  const version = spec.networking.cilium.version;
  const data = renderCiliumConfig(spec);
  const checksum = configChecksum(data);
  const variant = operatorVariant(spec);
  const line = manifestsFor(version);
  // Pinned by the digests of the release's published chart where we have them, else by tag.
  const release = recordedRelease(version);
  const digests = release?.digests;
  const ctx: WorkloadContext = {
    namespace,
    agentImage: `${REGISTRY}/cilium:${version}${pin(digests?.agent)}`,
    operatorImage: `${REGISTRY}/operator-${variant}:${version}${pin(variant === "aws" ? digests?.operatorAws : digests?.operatorGeneric)}`,
    operatorCommand: `cilium-operator-${variant}`,
    apiEnv: [
      { name: "KUBERNETES_SERVICE_HOST", value: apiEndpoint },
      { name: "KUBERNETES_SERVICE_PORT", value: "443" },
    ],
    configChecksum: checksum,
    operatorOnControlPlane: eniMode(spec.networking.cilium),
    operatorReplicas: spec.controlPlane.count > 1 ? 2 : 1,
    pods: line.pods,
    agentAdditions: agentAdditions(spec),
  };
  const features = CILIUM_FEATURES.flatMap((feature) =>
    feature.objects ? [feature.objects(spec, { namespace, release })] : [],
  );
  const configMap: K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cilium-config", namespace, labels: { "app.kubernetes.io/part-of": "cilium" } },
    data,
  };
  return {
    foundation: [
      ...serviceAccounts(namespace),
      configMap,
      ...rbac(namespace, line.line),
      ...line.extraObjects(namespace),
      ...features.flatMap((f) => f.foundation),
    ],
    workloads: [agentDaemonSet(ctx), ...operatorObjects(ctx), ...features.flatMap((f) => f.workloads)],
    configChecksum: checksum,
  };
}

/** What the EBS CSI driver's objects share: namespace, labels, resources, and what the Kubernetes version allows. */
import { parseSemver } from "../../catalogs/ciliumVersions";
import type { ClusterSpec } from "../../config/types";

export const EBS_CSI_NAMESPACE = "kube-system";
export const DRIVER_NAME = "ebs.csi.aws.com";

/** The chart's selector labels, with the release the program installs it as. */
export const NAME_LABELS = {
  "app.kubernetes.io/name": "aws-ebs-csi-driver",
  "app.kubernetes.io/instance": "aws-ebs-csi-driver",
};

/** The selector and pod labels of one of the driver's workloads (`ebs-csi-controller`, `ebs-csi-node`). */
export const workloadLabels = (app: string) => ({
  selector: { app, ...NAME_LABELS },
  pod: { app, ...NAME_LABELS, "app.kubernetes.io/version": "1.64.0", "app.kubernetes.io/component": "csi-driver" },
});

/** The chart's resources for sidecars that only probe (liveness probe, registrar) and for the rest. */
export const SMALL = { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "32Mi" } };
export const MEDIUM = { requests: { cpu: "10m", memory: "40Mi" }, limits: { memory: "256Mi" } };
export const READ_ONLY = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true };

/**
 * From Kubernetes 1.33 the kubelet re-reads a CSI driver's volume limit (MutableCSINodeAllocatableCount), so
 * the driver can report attachments other than its own (the chart's `semverCompare ">=1.33.0-0"`).
 */
export const updatesAllocatableCount = (spec: ClusterSpec) => (parseSemver(spec.kubernetesVersion)?.minor ?? 0) >= 33;

/**
 * From Kubernetes 1.34 the API serves storage.k8s.io/v1 VolumeAttributesClass (GA); before, only a beta API
 * that is off by default. The chart turns the sidecars' VolumeAttributesClass support off when the API lacks
 * it (`.Capabilities.APIVersions.Has`), which an offline render cannot see: switched off on a 1.34 cluster, a
 * StorageClass's volumeAttributesClassName would never be applied.
 */
export const servesVolumeAttributesClass = (spec: ClusterSpec) =>
  (parseSemver(spec.kubernetesVersion)?.minor ?? 0) >= 34;

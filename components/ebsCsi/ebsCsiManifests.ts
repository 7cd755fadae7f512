/**
 * Every object of the EBS CSI driver for a spec, as its chart (aws-ebs-csi-driver 2.64.0) renders them for
 * Linux nodes: accounts, RBAC, the CSIDriver and the default StorageClass first, then the controller and the
 * node DaemonSet. Pure; EbsCsiDriver declares what this returns.
 */
import type { ClusterSpec } from "../../config/types";
import type { K8sObject } from "../k8s/object";
import type { StagedObjects } from "../k8s/stages";
import { controllerObjects } from "./controller";
import { DRIVER_NAME, NAME_LABELS, updatesAllocatableCount } from "./labels";
import { nodeDaemonSet } from "./node";
import { rbacObjects } from "./ebsCsiRbac";

/** The cluster's default StorageClass: encrypted gp3 (the account's default EBS key), bound where the pod runs. */
export const DEFAULT_STORAGE_CLASS = "gp3";

export function renderEbsCsiManifests(spec: ClusterSpec): StagedObjects {
  const driver: K8sObject = {
    apiVersion: "storage.k8s.io/v1",
    kind: "CSIDriver",
    metadata: { name: DRIVER_NAME, labels: NAME_LABELS },
    spec: {
      attachRequired: true,
      podInfoOnMount: false,
      ...(updatesAllocatableCount(spec) && { nodeAllocatableUpdatePeriodSeconds: 10 }),
      fsGroupPolicy: "File",
    },
  };
  const storageClass: K8sObject = {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: DRIVER_NAME,
    parameters: { type: "gp3", encrypted: "true" },
    volumeBindingMode: "WaitForFirstConsumer",
    allowVolumeExpansion: true,
  };
  return {
    foundation: [...rbacObjects(), driver, storageClass],
    workloads: [...controllerObjects(spec), nodeDaemonSet()],
  };
}

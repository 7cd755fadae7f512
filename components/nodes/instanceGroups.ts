/**
 * The instance groups of a cluster, kOps style: one control-plane group of one node per zone the control
 * plane spans, and each node group as a group spread over every zone.
 */
import type { ClusterSpec } from "../../spec/types";

export interface InstanceGroup {
  name: string;
  role: "control-plane" | "node";
  /** Zones the group's Auto Scaling group spans. */
  zones: string[];
  instanceType: string;
  imageId: string;
  rootVolumeSize: number;
  minSize: number;
  maxSize: number;
  minHealthyPercentage: number;
}

export function instanceGroups(spec: ClusterSpec): InstanceGroup[] {
  const zones = spec.network.availabilityZones;
  const controlPlane = zones.slice(0, spec.controlPlane.count).map((zone): InstanceGroup => ({
    name: `control-plane-${zone}`,
    role: "control-plane",
    zones: [zone],
    instanceType: spec.controlPlane.instanceType,
    imageId: spec.controlPlane.imageId,
    rootVolumeSize: spec.controlPlane.rootVolumeSize,
    minSize: 1,
    maxSize: 1,
    // The member's etcd volume attaches to one instance at a time: the old node goes first, then its
    // replacement comes back as the same member (one group, one member at a time).
    minHealthyPercentage: 0,
  }));
  const nodes = spec.nodeGroups.map((g): InstanceGroup => ({
    name: g.name,
    role: "node",
    zones: [...zones],
    instanceType: g.instanceType,
    imageId: g.imageId,
    rootVolumeSize: g.rootVolumeSize,
    minSize: g.minSize,
    maxSize: g.maxSize,
    minHealthyPercentage: g.minHealthyPercentage,
  }));
  return [...controlPlane, ...nodes];
}

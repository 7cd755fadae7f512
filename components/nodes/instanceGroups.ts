/**
 * The instance groups of a cluster, kOps style: one control-plane group of one node per zone the control
 * plane spans, and each node group as a group spread over every zone.
 */
import type { ClusterSpec } from "../../config/types";

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
  /** Set for control-plane groups, whose size nothing else changes; node groups' is left to autoscalers. */
  desiredCapacity?: number;
  /** An instance refresh's bounds, in percent of the desired capacity. */
  minHealthyPercentage: number;
  maxHealthyPercentage: number;
}

/**
 * A control-plane group's sizes: one member; the second instance is the replacement an instance refresh
 * launches first: it joins etcd before the old node leaves (its termination hook), so the member count never
 * drops. `npm run restore-snapshot` sets them back after it has emptied the groups.
 */
export const CONTROL_PLANE_GROUP_SIZE = { minSize: 1, maxSize: 2, desiredCapacity: 1 } as const;

export function instanceGroups(spec: ClusterSpec): InstanceGroup[] {
  const zones = spec.network.availabilityZones;
  const controlPlane = zones.slice(0, spec.controlPlane.count).map((zone): InstanceGroup => ({
    name: `control-plane-${zone}`,
    role: "control-plane",
    zones: [zone],
    instanceType: spec.controlPlane.instanceType,
    imageId: spec.controlPlane.imageId,
    rootVolumeSize: spec.controlPlane.rootVolumeSize,
    ...CONTROL_PLANE_GROUP_SIZE,
    minHealthyPercentage: 100,
    maxHealthyPercentage: 200,
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
    maxHealthyPercentage: 100,
  }));
  return [...controlPlane, ...nodes];
}

/**
 * The cluster's instance groups as Auto Scaling runs them, kOps's `get instancegroups`: each group's role,
 * instance type, bounds and zones, the launch template version it pins, how many instances are in service
 * and how many still run an older version (an instance refresh under way). Groups come in the stack's
 * order; a group AWS has and the stack no longer declares (being deleted) comes last. Pure.
 */
import type { AutoScalingGroup } from "@aws-sdk/client-auto-scaling";
import type { InstanceGroup } from "../../components/nodes/instanceGroups";
import { INSTANCE_GROUP_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";

export interface InstanceGroupRow {
  name: string;
  role: string;
  instanceType: string;
  /** Auto Scaling's: undefined when the group has no Auto Scaling group. */
  minSize?: number;
  maxSize?: number;
  desired?: number;
  zones: string[];
  templateVersion?: string;
  inService: number;
  /** Instances on another launch template version than the group pins. */
  needUpdate: number;
  /** The stack declares the group, but AWS has no Auto Scaling group for it; or the other way round. */
  note?: string;
}

const tag = (group: AutoScalingGroup, key: string) => group.Tags?.find((t) => t.Key === key)?.Value;

function roleOf(asg: AutoScalingGroup): string | undefined {
  return (Object.keys(ROLE_TAGS) as (keyof typeof ROLE_TAGS)[]).find((role) => tag(asg, ROLE_TAGS[role]) === "1");
}

function row(name: string, declared: InstanceGroup | undefined, asg: AutoScalingGroup): InstanceGroupRow {
  const version = asg.LaunchTemplate?.Version;
  const instances = asg.Instances ?? [];
  const types = [...new Set(instances.map((i) => i.InstanceType).filter((t): t is string => !!t))];
  return {
    name,
    role: roleOf(asg) ?? declared?.role ?? "",
    instanceType: declared?.instanceType ?? types.join(","),
    minSize: asg.MinSize,
    maxSize: asg.MaxSize,
    desired: asg.DesiredCapacity,
    zones: asg.AvailabilityZones ?? [],
    templateVersion: version,
    inService: instances.filter((i) => i.LifecycleState === "InService").length,
    needUpdate: instances.filter((i) => i.LaunchTemplate?.Version !== version).length,
    ...(declared ? {} : { note: "not in the stack config" }),
  };
}

export function instanceGroupRows(declared: InstanceGroup[], asgs: AutoScalingGroup[]): InstanceGroupRow[] {
  const nameOf = (asg: AutoScalingGroup) => tag(asg, INSTANCE_GROUP_TAG) ?? asg.AutoScalingGroupName ?? "";
  const rows = declared.map((group): InstanceGroupRow => {
    const asg = asgs.find((a) => nameOf(a) === group.name);
    if (asg) return row(group.name, group, asg);
    return {
      name: group.name,
      role: group.role,
      instanceType: group.instanceType,
      zones: group.zones,
      inService: 0,
      needUpdate: 0,
      note: "no Auto Scaling group",
    };
  });
  const extra = asgs.filter((a) => !declared.some((g) => g.name === nameOf(a)));
  return [...rows, ...extra.map((asg) => row(nameOf(asg), undefined, asg))];
}

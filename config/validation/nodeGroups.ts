/** Rules on the control plane and the node groups. */
import { INSTANCE_TYPES } from "../../catalogs/awsEnums";
import type { ClusterSpec } from "../types";
import { closestValues } from "./closestKey";
import { child, FieldError, index, invalid, notSupported, withSuggestion } from "./fieldErrors";

const INSTANCE_TYPE = /^[a-z][a-z0-9-]*[0-9][a-z0-9-]*\.[a-z0-9]+$/;
const AMI_ID = /^ami-([0-9a-f]{8}|[0-9a-f]{17})$/;
/** Node group names become parts of resource names; 40 leaves room for the cluster name in AWS limits. */
const GROUP_NAME = /^(?=.{1,40}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function checkMachine(errors: FieldError[], path: string, instanceType: string, imageId: string): void {
  if (!INSTANCE_TYPE.test(instanceType)) {
    errors.push(invalid(child(path, "instanceType"), instanceType, "must be an EC2 instance type such as t3.medium"));
  } else if (!INSTANCE_TYPES.has(instanceType)) {
    // Nearest within the family first (`t3.mega` → t3 sizes), else nearest of all.
    const family = [...INSTANCE_TYPES].filter((t) => t.startsWith(`${instanceType.split(".")[0]}.`));
    const near = closestValues(instanceType, family.length ? family : INSTANCE_TYPES);
    const detail = `not an EC2 instance type; closest: ${near.map((t) => JSON.stringify(t)).join(", ")}`;
    errors.push(withSuggestion(invalid(child(path, "instanceType"), instanceType, detail), near[0]));
  }
  if (imageId !== "" && !AMI_ID.test(imageId)) {
    errors.push(invalid(child(path, "imageId"), imageId, "must be empty or an AMI id such as ami-0123456789abcdef0"));
  }
}

export function validateInstanceGroups(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  const { controlPlane } = spec;
  checkMachine(errors, "controlPlane", controlPlane.instanceType, controlPlane.imageId);
  const zoneCount = spec.network.availabilityZones.length;
  // The count a fix sets: high availability where the zones allow it, else one node.
  const fittingCount = zoneCount >= 3 && controlPlane.count > 1 ? "3" : "1";
  if (controlPlane.count !== 1 && controlPlane.count !== 3) {
    errors.push(withSuggestion(notSupported("controlPlane.count", controlPlane.count, ["1", "3"]), fittingCount));
  } else if (controlPlane.count > zoneCount && zoneCount > 0) {
    const detail = `each control-plane node needs a zone of its own; network.availabilityZones has ${zoneCount}`;
    errors.push(withSuggestion(invalid("controlPlane.count", controlPlane.count, detail), fittingCount));
  }

  const names = new Set<string>();
  spec.nodeGroups.forEach((group, i) => {
    const path = index("nodeGroups", i);
    if (!GROUP_NAME.test(group.name)) {
      errors.push(
        invalid(
          child(path, "name"),
          group.name,
          "must be a DNS label: lowercase letters, digits and '-', at most 40 characters",
        ),
      );
    } else if (names.has(group.name)) {
      errors.push(invalid(child(path, "name"), group.name, "duplicate node group name"));
    }
    names.add(group.name);
    checkMachine(errors, path, group.instanceType, group.imageId);
    if (group.minSize > group.maxSize) {
      const e = invalid(child(path, "minSize"), group.minSize, `must not be greater than maxSize (${group.maxSize})`);
      errors.push(withSuggestion(e, String(group.maxSize)));
    }
  });
  return errors;
}

/** Rules on the control plane and the node groups. */
import { INSTANCE_TYPES } from "../../catalogs/awsEnums";
import { eniMaxPods, hostNetworkPods, instanceTypeFacts, recordedInstanceTypes } from "../../catalogs/instanceTypes";
import { eniMode } from "../eniMode";
import type { ClusterSpec } from "../types";
import { closestValues } from "./closestKey";
import { child, FieldError, index, invalid, notSupported, withSuggestion } from "./fieldErrors";

const INSTANCE_TYPE = /^[a-z][a-z0-9-]*[0-9][a-z0-9-]*\.[a-z0-9]+$/;
const AMI_ID = /^ami-([0-9a-f]{8}|[0-9a-f]{17})$/;
/** Node group names become parts of resource names; 40 leaves room for the cluster name in AWS limits. */
const GROUP_NAME = /^(?=.{1,40}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/**
 * kubeadm's preflight on a control-plane node (cmd/kubeadm/app/constants: ControlPlaneNumCPU = 2,
 * ControlPlaneMem = 1700 MB): below either, `kubeadm init` and `join --control-plane` fail.
 */
const CONTROL_PLANE_MIN = { vcpus: 2, memoryMB: 1700 };

/** The smallest recorded type of FAMILY (else of every family) that passes `fits`, for a fix. */
function smallestFitting(family: string, fits: (t: string) => boolean): string | undefined {
  const size = (t: string) => {
    const f = instanceTypeFacts(t)!;
    return f.vcpus * 1e6 + f.memoryMiB;
  };
  const candidates = recordedInstanceTypes().filter((t) => INSTANCE_TYPES.has(t) && fits(t));
  const own = candidates.filter((t) => t.startsWith(`${family}.`));
  return (own.length > 0 ? own : candidates.filter((t) => /^m\d+i?\./.test(t))).sort((a, b) => size(a) - size(b))[0];
}

/** What EC2 says of the type that keeps it from running here: a control plane kubeadm refuses, a host-only type. */
function checkFacts(errors: FieldError[], path: string, instanceType: string, controlPlane: boolean): void {
  const facts = instanceTypeFacts(instanceType);
  if (!facts) return;
  const field = child(path, "instanceType");
  const family = instanceType.split(".")[0];
  if (facts.dedicatedHostsOnly) {
    const detail =
      `${instanceType} runs only on Dedicated Hosts (EC2 Mac instances), which an Auto Scaling group here does ` +
      "not allocate: choose a type that runs on shared hardware";
    const fix = smallestFitting("m7i", (t) => {
      const f = instanceTypeFacts(t)!;
      return !f.dedicatedHostsOnly && f.vcpus >= facts.vcpus && f.memoryMiB >= facts.memoryMiB;
    });
    errors.push(fix ? withSuggestion(invalid(field, instanceType, detail), fix) : invalid(field, instanceType, detail));
    return;
  }
  if (controlPlane && (facts.vcpus < CONTROL_PLANE_MIN.vcpus || facts.memoryMiB < CONTROL_PLANE_MIN.memoryMB)) {
    const detail =
      `${instanceType} has ${facts.vcpus} vCPU(s) and ${facts.memoryMiB} MiB; kubeadm's preflight refuses a ` +
      `control-plane node with fewer than ${CONTROL_PLANE_MIN.vcpus} vCPUs or ${CONTROL_PLANE_MIN.memoryMB} MB`;
    const fix = smallestFitting(family, (t) => {
      const f = instanceTypeFacts(t)!;
      return !f.dedicatedHostsOnly && f.vcpus >= CONTROL_PLANE_MIN.vcpus && f.memoryMiB >= CONTROL_PLANE_MIN.memoryMB;
    });
    errors.push(fix ? withSuggestion(invalid(field, instanceType, detail), fix) : invalid(field, instanceType, detail));
  }
}

/**
 * The program's own DaemonSet pods on the pod network of every worker: the EBS CSI driver's node plugin
 * (Cilium's agent and kube-proxy run on the host network). tests/plan checks it against the plan's DaemonSets.
 */
export const podNetworkDaemonSets = (spec: Pick<ClusterSpec, "addons">): number =>
  spec.addons.ebsCsiDriver.enabled ? 1 : 0;

/**
 * In ENI mode a worker's pods take the addresses its ENIs hold (max pods, catalogs/instanceTypes.ts): a type
 * whose ENIs hold no more than the program's own pods leaves none for workloads.
 */
function checkWorkloadRoom(errors: FieldError[], spec: ClusterSpec, path: string, instanceType: string): void {
  if (!eniMode(spec.networking.cilium) || !instanceTypeFacts(instanceType)) return;
  const hostNetwork = hostNetworkPods(spec.kubeProxy.enabled);
  const own = podNetworkDaemonSets(spec);
  const room = eniMaxPods(instanceType, hostNetwork) - hostNetwork - own;
  if (room >= 1) return;
  const fits = (t: string) => {
    const f = instanceTypeFacts(t)!;
    return !f.dedicatedHostsOnly && eniMaxPods(t, hostNetwork) - hostNetwork - own >= 1;
  };
  const detail =
    `in ENI mode a ${instanceType} node runs ${eniMaxPods(instanceType, hostNetwork)} pods (its ENIs' addresses), ` +
    `all taken by the cluster's own (${hostNetwork} on the host network, ${own} on the pod network): none is left for workloads`;
  const fix = smallestFitting(instanceType.split(".")[0], fits);
  const field = child(path, "instanceType");
  errors.push(fix ? withSuggestion(invalid(field, instanceType, detail), fix) : invalid(field, instanceType, detail));
}

function checkMachine(
  errors: FieldError[],
  path: string,
  instanceType: string,
  imageId: string,
  controlPlane = false,
): void {
  if (!INSTANCE_TYPE.test(instanceType)) {
    errors.push(invalid(child(path, "instanceType"), instanceType, "must be an EC2 instance type such as t3.medium"));
  } else if (!INSTANCE_TYPES.has(instanceType)) {
    // Nearest within the family first (`t3.mega` → t3 sizes), else nearest of all.
    const family = [...INSTANCE_TYPES].filter((t) => t.startsWith(`${instanceType.split(".")[0]}.`));
    const near = closestValues(instanceType, family.length ? family : INSTANCE_TYPES);
    const detail = `not an EC2 instance type; closest: ${near.map((t) => JSON.stringify(t)).join(", ")}`;
    errors.push(withSuggestion(invalid(child(path, "instanceType"), instanceType, detail), near[0]));
  } else {
    checkFacts(errors, path, instanceType, controlPlane);
  }
  if (imageId !== "" && !AMI_ID.test(imageId)) {
    errors.push(invalid(child(path, "imageId"), imageId, "must be empty or an AMI id such as ami-0123456789abcdef0"));
  }
}

export function validateInstanceGroups(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  const { controlPlane } = spec;
  checkMachine(errors, "controlPlane", controlPlane.instanceType, controlPlane.imageId, true);
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
    checkWorkloadRoom(errors, spec, path, group.instanceType);
    if (group.minSize > group.maxSize) {
      const e = invalid(child(path, "minSize"), group.minSize, `must not be greater than maxSize (${group.maxSize})`);
      errors.push(withSuggestion(e, String(group.maxSize)));
    }
  });
  return errors;
}

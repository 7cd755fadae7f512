/** The two stages every add-on applies: what its workloads need first, then the workloads. */
import * as pulumi from "@pulumi/pulumi";
import type { Stage } from "./delivery";
import type { K8sObject } from "./object";

export interface StagedObjects {
  /** Accounts, RBAC, configuration and API objects the workloads need first. */
  foundation: K8sObject[];
  workloads: K8sObject[];
}

/** The stages of an add-on from its shape at declaration and its final render. */
export function foundationThenWorkloads(shape: StagedObjects, rendered: pulumi.Output<StagedObjects>): Stage[] {
  return [
    { shape: shape.foundation, rendered: rendered.apply((r) => r.foundation) },
    { shape: shape.workloads, rendered: rendered.apply((r) => r.workloads) },
  ];
}

/** A render with nothing computed, as an output: the shape is already final. */
export const final = (objects: StagedObjects): pulumi.Output<StagedObjects> =>
  pulumi.output(objects) as unknown as pulumi.Output<StagedObjects>; // unwrapping plain data changes only its type

/**
 * How an add-on's objects reach the cluster (`addons.applyFrom`). `throughProvider`: each object is a
 * Pulumi resource of the cluster's Kubernetes provider, so previews diff every object, but the machine
 * running `pulumi up` must reach the API. `fromControlPlane`: an SSM document holds the objects and a
 * State Manager association runs it on the control-plane nodes, which apply them with their own admin
 * kubeconfig (kOps's channels tool does the same); `pulumi up` then needs only the AWS API, and waits,
 * through the association, until the objects are applied.
 */
import { Association as SsmAssociation } from "@pulumi/aws/ssm/association";
import { Document as SsmDocument } from "@pulumi/aws/ssm/document";
import * as pulumi from "@pulumi/pulumi";
import { awsName } from "../naming";
import type { Tags } from "../tags";
import { applyDocument } from "./applyScript";
import { declareObjects, logicalNames } from "./declare";
import type { K8sObject } from "./object";

/** Objects applied together: the shape known at declaration and the final render. */
export interface Stage {
  shape: readonly K8sObject[];
  rendered: pulumi.Output<readonly K8sObject[]>;
}

/** What `dependsOn` accepts in resource options. */
type DependsOn = pulumi.CustomResourceOptions["dependsOn"];

export interface AddonDelivery {
  /** Declares the add-on's stages under `parent`, each after the stages before it and after `dependsOn`. */
  declare(name: string, stages: readonly Stage[], parent: pulumi.Resource, dependsOn?: DependsOn): void;
}

/**
 * Every object a resource of the Kubernetes provider the parent was given in `providers`. Retained on
 * delete: an object leaving the stack (the switch to `controlPlane`, or one an add-on stops rendering) stays
 * in the cluster, where deleting Cilium's objects would cut every pod's network.
 */
export const throughProvider: AddonDelivery = {
  declare(name, stages, parent, dependsOn) {
    const names = logicalNames(
      name,
      stages.flatMap((s) => s.shape),
    );
    let before: DependsOn = dependsOn;
    for (const stage of stages) {
      const opts = { parent, dependsOn: before, retainOnDelete: true };
      before = declareObjects(name, stage.shape, stage.rendered, opts, names);
    }
  },
};

export interface ControlPlaneDeliveryArgs {
  clusterName: string;
  /** The control plane's Auto Scaling groups: their instances, and no worker, are the targets. */
  controlPlaneGroupNames: pulumi.Input<string>[];
  tags: (name: string) => Tags;
  /** Give up waiting for the association's success after this many seconds. */
  timeoutSeconds: number;
}

/**
 * Targets the control plane's instances by the tag EC2 Auto Scaling puts on every instance it launches
 * (`aws:autoscaling:groupName`), so no worker is targeted; the script still checks the node's role.
 *
 * The provider waits for the association's success only when it creates one (an update just calls
 * UpdateAssociation), so a new document version replaces the association: `pulumi up` then waits for the
 * new objects to be applied and fails when they are not.
 */
export function fromControlPlane(args: ControlPlaneDeliveryArgs): AddonDelivery {
  return {
    declare(name, stages, parent, dependsOn) {
      const objects = pulumi.all(stages.map((s) => s.rendered)).apply((r) => r.flat());
      const documentName = awsName(`${args.clusterName}-${name}-addon`, 128, /[^A-Za-z0-9_.-]/g);
      const document = new SsmDocument(
        `${name}-addon`,
        {
          name: documentName,
          documentType: "Command",
          documentFormat: "JSON",
          content: objects.apply((o) => applyDocument(name, o)),
          tags: args.tags(documentName),
        },
        { parent },
      );
      new SsmAssociation(
        `${name}-addon`,
        {
          name: document.name,
          associationName: documentName,
          documentVersion: document.latestVersion,
          targets: [{ key: "tag:aws:autoscaling:groupName", values: args.controlPlaneGroupNames }],
          waitForSuccessTimeoutSeconds: args.timeoutSeconds,
          tags: args.tags(documentName),
        },
        // Delete first: two associations of one document would run it twice on each node.
        { parent, dependsOn, replaceOnChanges: ["documentVersion"], deleteBeforeReplace: true },
      );
    },
  };
}

/**
 * NodeTerminationHandler: aws-node-termination-handler in queue mode, which drains a node before Auto Scaling
 * terminates its instance (the drain hook of every group) or EC2 interrupts it. Rendering is
 * `renderNodeTerminationHandlerManifests`; its queue and rules are NodeTerminationHandlerQueue's, its AWS
 * permissions the `nodeTerminationHandler` statement source, on the control-plane role it runs under.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AddonDelivery } from "../k8s/delivery";
import { foundationThenWorkloads } from "../k8s/stages";
import { renderNodeTerminationHandlerManifests } from "./nodeTerminationHandlerManifests";

export interface NodeTerminationHandlerArgs {
  spec: ClusterSpec;
  /** The URL of its queue (NodeTerminationHandlerQueue). */
  queueUrl: pulumi.Input<string>;
  delivery: AddonDelivery;
}

export class NodeTerminationHandler extends pulumi.ComponentResource {
  constructor(name: string, args: NodeTerminationHandlerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:drain:NodeTerminationHandler", name, {}, opts);
    const { spec } = args;
    // Only an env value holds the queue's URL, computed until the queue exists.
    const rendered = pulumi.output(args.queueUrl).apply((url) => renderNodeTerminationHandlerManifests(spec, url));
    const shape = renderNodeTerminationHandlerManifests(spec, "");
    args.delivery.declare(name, foundationThenWorkloads(shape, rendered), this, opts?.dependsOn);
    this.registerOutputs({});
  }
}

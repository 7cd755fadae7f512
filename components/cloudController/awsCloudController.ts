/**
 * AwsCloudController: the AWS cloud controller manager, which initialises the nodes (the kubelets and the
 * controller manager run with `--cloud-provider=external`) and runs Services of type LoadBalancer. Rendering
 * is `renderCloudControllerManifests`; its AWS permissions are the `cloudController` statement source.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AddonDelivery } from "../k8s/delivery";
import { foundationThenWorkloads } from "../k8s/stages";
import { renderCloudControllerManifests } from "./cloudControllerManifests";

export interface AwsCloudControllerArgs {
  spec: ClusterSpec;
  /** The API's internal name: the controller reaches the API there before Service addresses route. */
  apiEndpoint: pulumi.Input<string>;
  delivery: AddonDelivery;
}

export class AwsCloudController extends pulumi.ComponentResource {
  constructor(name: string, args: AwsCloudControllerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:cloudController:AwsCloudController", name, {}, opts);
    const { spec } = args;
    // Only an env value holds the endpoint, computed until the load balancer exists.
    const rendered = pulumi.output(args.apiEndpoint).apply((e) => renderCloudControllerManifests(spec, e));
    const shape = renderCloudControllerManifests(spec, "");
    args.delivery.declare(name, foundationThenWorkloads(shape, rendered), this, opts?.dependsOn);
    this.registerOutputs({});
  }
}

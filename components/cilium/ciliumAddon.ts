/**
 * CiliumAddon: Cilium's Kubernetes objects for the spec's version and IPAM mode: accounts, RBAC and the
 * ConfigMap first, then the agent and operator. Rendering is `renderCiliumManifests`; declaring is the
 * Kubernetes layer's (the cluster's provider, given in `providers`, or the control plane).
 */
import * as pulumi from "@pulumi/pulumi";
import type { CiliumSpec } from "./ciliumSpec";
import type { AddonDelivery } from "../k8s/delivery";
import { foundationThenWorkloads } from "../k8s/stages";
import { renderCiliumManifests } from "./ciliumManifests";

export interface CiliumAddonArgs {
  spec: CiliumSpec;
  /** DNS name of the API load balancer: agents and the operator reach the API there before the CNI is up. */
  apiEndpoint: pulumi.Input<string>;
  /** How the objects reach the cluster (`addons.applyFrom`). */
  delivery: AddonDelivery;
}

const TYPE = "cilium-cluster:cilium:CiliumAddon";

export class CiliumAddon extends pulumi.ComponentResource {
  /** SHA-256 of the rendered cilium-config data; a change rolls the agent and operator pods. */
  readonly configChecksum: pulumi.Output<string>;

  constructor(name: string, args: CiliumAddonArgs, opts?: pulumi.ComponentResourceOptions) {
    super(TYPE, name, {}, opts);
    const { spec } = args;
    // Only env values hold the API endpoint, which is computed until the load balancer exists: names,
    // kinds and metadata are known at declaration, so a preview shows every object.
    const rendered = pulumi.output(args.apiEndpoint).apply((endpoint) => renderCiliumManifests(spec, endpoint));
    const shape = renderCiliumManifests(spec, "");
    args.delivery.declare(name, foundationThenWorkloads(shape, rendered), this, opts?.dependsOn);

    this.configChecksum = pulumi.output(shape.configChecksum);
    this.registerOutputs({ configChecksum: this.configChecksum });
  }
}

/**
 * EbsCsiDriver: the EBS CSI driver (`addons.ebsCsiDriver`), which provisions PersistentVolumes as EBS volumes
 * tagged for this cluster. Rendering is `renderEbsCsiManifests`, with nothing computed; its AWS permissions
 * are the `ebsCsiDriver` statement source, on the control-plane role its controller runs under.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AddonDelivery } from "../k8s/delivery";
import { final, foundationThenWorkloads } from "../k8s/stages";
import { renderEbsCsiManifests } from "./ebsCsiManifests";

export interface EbsCsiDriverArgs {
  spec: ClusterSpec;
  delivery: AddonDelivery;
}

export class EbsCsiDriver extends pulumi.ComponentResource {
  constructor(name: string, args: EbsCsiDriverArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:ebsCsi:EbsCsiDriver", name, {}, opts);
    const objects = renderEbsCsiManifests(args.spec);
    args.delivery.declare(name, foundationThenWorkloads(objects, final(objects)), this, opts?.dependsOn);
    this.registerOutputs({});
  }
}

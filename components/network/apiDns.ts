/**
 * ApiDns: the stable name of the Kubernetes API inside the cluster, kOps's `api.internal.<clusterName>`: a
 * Route53 private hosted zone for the cluster, associated with its VPC, and an alias record to the internal
 * API load balancer. The name is kubeadm's controlPlaneEndpoint, in every kubeconfig and certificate the
 * cluster issues, and what Cilium uses; a load balancer replaced behind it changes nothing on the nodes.
 * Control-plane nodes resolve it to themselves instead (bootstrap/control-plane.sh `pin_api_endpoint`).
 */
import { Record as DnsRecord } from "@pulumi/aws/route53/record";
import { Zone } from "@pulumi/aws/route53/zone";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { clusterTags } from "../tags";

/** The API's name inside the cluster. */
export const internalApiName = (clusterName: string) => `api.internal.${clusterName}`;

export interface ApiDnsArgs {
  spec: ClusterSpec;
  vpcId: pulumi.Input<string>;
  /** The internal API load balancer: its DNS name and Route53 zone. */
  loadBalancer: { dnsName: pulumi.Input<string>; zoneId: pulumi.Input<string> };
}

export class ApiDns extends pulumi.ComponentResource {
  /** `api.internal.<clusterName>`; depend on this component for the record to exist. */
  readonly internalName: string;

  constructor(name: string, args: ApiDnsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:network:ApiDns", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const zone = new Zone(
      `${name}-zone`,
      {
        name: spec.clusterName,
        comment: `Private names of cluster ${spec.clusterName}`,
        vpcs: [{ vpcId: args.vpcId }],
        tags: clusterTags(spec, spec.clusterName),
      },
      parent,
    );
    new DnsRecord(
      `${name}-api-internal`,
      {
        zoneId: zone.zoneId,
        name: internalApiName(spec.clusterName),
        type: "A",
        aliases: [{ name: args.loadBalancer.dnsName, zoneId: args.loadBalancer.zoneId, evaluateTargetHealth: false }],
      },
      parent,
    );
    this.internalName = internalApiName(spec.clusterName);
    this.registerOutputs({ internalName: this.internalName });
  }
}

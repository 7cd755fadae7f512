/**
 * ApiDns: the stable name of the Kubernetes API inside the cluster, kOps's `api.internal.<clusterName>`: a
 * Route53 private hosted zone for the cluster, associated with its VPC, and an alias record to the internal
 * API load balancer. The name is kubeadm's controlPlaneEndpoint, in every kubeconfig and certificate the
 * cluster issues, and what Cilium uses; a load balancer replaced behind it changes nothing on the nodes.
 * The zone also holds the etcd members' names (`etcd-<zone>.internal.<clusterName>`): declared here, so a
 * plan shows them and a destroy removes them, and pointed by each control-plane node at itself.
 */
import * as route53 from "@pulumi/aws/route53";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../spec/types";
import { clusterTags } from "../tags";
import { ETCD_MEMBER_RECORD_TTL, etcdMembers } from "../nodes/controlPlaneState";

/**
 * What a member's record holds until its node claims it: kOps's placeholder, an address of TEST-NET-3
 * (RFC 5737) that nothing answers on.
 */
export const ETCD_MEMBER_PLACEHOLDER = "203.0.113.123";

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
  /** The private hosted zone: control-plane nodes point their etcd member's record in it at themselves. */
  readonly zoneId: pulumi.Output<string>;

  constructor(name: string, args: ApiDnsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:network:ApiDns", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const zone = new route53.Zone(
      `${name}-zone`,
      {
        name: spec.clusterName,
        comment: `Private names of cluster ${spec.clusterName}`,
        vpcs: [{ vpcId: args.vpcId }],
        // A record a node wrote after its resource went (a node booting during a scale-down) must not keep
        // the zone from being deleted.
        forceDestroy: true,
        tags: clusterTags(spec, spec.clusterName),
      },
      parent,
    );
    new route53.Record(
      `${name}-api-internal`,
      {
        zoneId: zone.zoneId,
        name: internalApiName(spec.clusterName),
        type: "A",
        aliases: [{ name: args.loadBalancer.dnsName, zoneId: args.loadBalancer.zoneId, evaluateTargetHealth: false }],
      },
      parent,
    );
    for (const member of etcdMembers(spec)) {
      new route53.Record(
        `${name}-etcd-${member.zone}`,
        {
          zoneId: zone.zoneId,
          name: member.name,
          type: "A",
          ttl: ETCD_MEMBER_RECORD_TTL,
          records: [ETCD_MEMBER_PLACEHOLDER],
          // A record a node claimed before (a stack that lost its state) is taken over, not a failed create.
          allowOverwrite: true,
        },
        // The node owns the address. A delete reads the record's current value from Route53 first
        // (the AWS provider's resourceRecordDelete), so a destroy removes it whatever the node wrote.
        { ...parent, ignoreChanges: ["records"] },
      );
    }
    this.internalName = internalApiName(spec.clusterName);
    this.zoneId = zone.zoneId;
    this.registerOutputs({ internalName: this.internalName, zoneId: this.zoneId });
  }
}

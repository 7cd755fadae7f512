/** A network load balancer for the Kubernetes API: TCP 443 to the control plane's API servers on 443. */
import { Listener } from "@pulumi/aws/lb/listener";
import { LoadBalancer } from "@pulumi/aws/lb/loadBalancer";
import { TargetGroup } from "@pulumi/aws/lb/targetGroup";
import * as pulumi from "@pulumi/pulumi";
import { awsName } from "../naming";
import type { Tags } from "../tags";
import { API_LISTENER, KUBE_APISERVER } from "../wellKnownPorts";

export interface ApiLoadBalancerArgs {
  /** Distinguishes the load balancers of one cluster (`api`, `api-internal`). */
  role: string;
  clusterName: string;
  internal: boolean;
  subnetIds: pulumi.Input<string>[];
  securityGroupId: pulumi.Input<string>;
  vpcId: pulumi.Input<string>;
  tags: (name: string) => Tags;
}

export interface ApiLoadBalancer {
  dnsName: pulumi.Output<string>;
  /** The load balancer's Route53 hosted zone, for alias records. */
  zoneId: pulumi.Output<string>;
  targetGroupArn: pulumi.Output<string>;
}

export function declareApiLoadBalancer(
  name: string,
  args: ApiLoadBalancerArgs,
  parent: pulumi.Resource,
): ApiLoadBalancer {
  // Both keep their names, which AWS holds unique: deleted before their replacements are created, as the
  // provider asks when its diff replaces them (cli/plan/deleteFirst.ts), and on `pulumi up --replace`, when it
  // does not.
  const opts = { parent, deleteBeforeReplace: true };
  const lbName = awsName(`${args.role}-${args.clusterName}`, 32);
  const lb = new LoadBalancer(
    `${name}-${args.role}`,
    {
      name: lbName,
      loadBalancerType: "network",
      internal: args.internal,
      subnets: args.subnetIds,
      securityGroups: [args.securityGroupId],
      enableCrossZoneLoadBalancing: true,
      tags: args.tags(lbName),
    },
    opts,
  );
  const targetGroupName = awsName(`${args.role}-tcp-${args.clusterName}`, 32);
  const targetGroup = new TargetGroup(
    `${name}-${args.role}`,
    {
      name: targetGroupName,
      port: KUBE_APISERVER,
      protocol: "TCP",
      vpcId: args.vpcId,
      targetType: "instance",
      connectionTermination: true,
      // With client IPs preserved, a target routed to itself drops the connection (NLB hairpinning):
      // control-plane nodes reach the API at their own API server (bootstrap/control-plane.sh), but a
      // control-plane node's pods (Cilium's agent, say) dial the load balancer.
      preserveClientIp: "false",
      deregistrationDelay: 30,
      healthCheck: {
        protocol: "HTTPS",
        port: String(KUBE_APISERVER),
        path: "/readyz",
        healthyThreshold: 2,
        unhealthyThreshold: 2,
        interval: 10,
      },
      tags: args.tags(targetGroupName),
    },
    opts,
  );
  new Listener(
    `${name}-${args.role}-${API_LISTENER}`,
    {
      loadBalancerArn: lb.arn,
      port: API_LISTENER,
      protocol: "TCP",
      defaultActions: [{ type: "forward", targetGroupArn: targetGroup.arn }],
      tags: args.tags(`${args.role}-${API_LISTENER}.${args.clusterName}`),
    },
    { parent },
  );
  return { dnsName: lb.dnsName, zoneId: lb.zoneId, targetGroupArn: targetGroup.arn };
}

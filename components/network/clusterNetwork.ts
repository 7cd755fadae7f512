/**
 * ClusterNetwork: the VPC of a kOps-style cluster: subnets per zone, internet and NAT gateways, route
 * tables, the security groups of the control plane, nodes and API load balancer with one resource per
 * rule, and the API network load balancer. A thin layer over `planSubnets` and `securityRules`.
 */
import { Eip } from "@pulumi/aws/ec2/eip";
import { InternetGateway } from "@pulumi/aws/ec2/internetGateway";
import { NatGateway } from "@pulumi/aws/ec2/natGateway";
import { Route } from "@pulumi/aws/ec2/route";
import { RouteTable } from "@pulumi/aws/ec2/routeTable";
import { RouteTableAssociation } from "@pulumi/aws/ec2/routeTableAssociation";
import { SecurityGroup } from "@pulumi/aws/ec2/securityGroup";
import { Subnet } from "@pulumi/aws/ec2/subnet";
import { Vpc } from "@pulumi/aws/ec2/vpc";
import { SecurityGroupEgressRule } from "@pulumi/aws/vpc/securityGroupEgressRule";
import { SecurityGroupIngressRule } from "@pulumi/aws/vpc/securityGroupIngressRule";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { clusterTags, NODE_SUBNET_TAG, Tags } from "../tags";
import { declareApiLoadBalancer } from "./apiLoadBalancer";
import { planSubnets, PlannedSubnet, SubnetRole } from "../../config/subnetPlan";
import { GroupRole, securityRules } from "./securityRules";

/**
 * What the network reads of the cluster's config, and nothing more: its name and cloud labels (names and
 * tags), the network (CIDR, zones, NAT), the topology, and the API's load balancer and access.
 */
export type NetworkSpec = Pick<ClusterSpec, "clusterName" | "cloudLabels" | "network" | "topology"> & {
  api: Pick<ClusterSpec["api"], "loadBalancer" | "access">;
};

export interface ClusterNetworkArgs {
  spec: NetworkSpec;
}

/**
 * What load balancer controllers pick subnets by. Public-topology subnets are the only subnets, so they
 * carry both roles, as kOps tags them: internal load balancers go there too.
 */
const ROLE_TAGS: Record<SubnetRole, Tags> = {
  private: { "kubernetes.io/role/internal-elb": "1", SubnetType: "Private", ...NODE_SUBNET_TAG },
  utility: { "kubernetes.io/role/elb": "1", SubnetType: "Utility" },
  public: { "kubernetes.io/role/elb": "1", "kubernetes.io/role/internal-elb": "1", SubnetType: "Public" },
};

export class ClusterNetwork extends pulumi.ComponentResource {
  readonly vpcId: pulumi.Output<string>;
  /** Subnet ids per role, each list in zone order (empty for roles the topology does not have). */
  readonly subnetIds: Record<SubnetRole, pulumi.Output<string>[]>;
  /** Subnets nodes run in (private, or public in the public topology), in zone order. */
  readonly nodeSubnetIds: pulumi.Output<string>[];
  readonly zones: readonly string[];
  readonly securityGroupIds: Record<GroupRole, pulumi.Output<string>>;
  /** Target groups the control-plane nodes register with. */
  readonly apiTargetGroupArns: pulumi.Output<string>[];
  /** DNS name of the API load balancer users reach (kubeconfig). */
  readonly apiEndpoint: pulumi.Output<string>;
  /** DNS name of the internal API load balancer: what nodes, kubelets and Cilium use. */
  readonly apiInternalEndpoint: pulumi.Output<string>;
  /** The default routes and route-table associations of the nodes' subnets: their way out (IGW or NAT). */
  readonly egress: pulumi.Resource[] = [];
  /** Route53 hosted zone of the internal API load balancer (for the api.internal alias). */
  readonly apiInternalZoneId: pulumi.Output<string>;

  constructor(name: string, args: ClusterNetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:network:ClusterNetwork", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const tags = (resourceName: string, extra: Tags = {}) => clusterTags(spec, resourceName, extra);
    const cluster = spec.clusterName;

    const { cidr, availabilityZones } = spec.network;
    const plan = planSubnets(cidr, availabilityZones, spec.topology);
    if ("error" in plan) throw new Error(`subnet plan: ${plan.error}`); // validation rejects this config first

    const vpc = new Vpc(
      `${name}-vpc`,
      { cidrBlock: spec.network.cidr, enableDnsHostnames: true, enableDnsSupport: true, tags: tags(cluster) },
      parent,
    );
    const igw = new InternetGateway(`${name}-igw`, { vpcId: vpc.id, tags: tags(cluster) }, parent);

    const subnets = new Map<string, Subnet>();
    const key = (s: Pick<PlannedSubnet, "role" | "zone">) => `${s.role}-${s.zone}`;
    for (const s of plan.subnets) {
      const subnetName = `${s.zone}.${s.role}.${cluster}`;
      subnets.set(
        key(s),
        new Subnet(
          `${name}-${key(s)}`,
          {
            vpcId: vpc.id,
            cidrBlock: s.cidr,
            availabilityZone: s.zone,
            mapPublicIpOnLaunch: s.role === "public",
            tags: tags(subnetName, ROLE_TAGS[s.role]),
          },
          parent,
        ),
      );
    }

    const publicRoutes = new RouteTable(`${name}-public`, { vpcId: vpc.id, tags: tags(`public.${cluster}`) }, parent);
    const publicDefault = new Route(
      `${name}-public-default`,
      { routeTableId: publicRoutes.id, destinationCidrBlock: "0.0.0.0/0", gatewayId: igw.id },
      parent,
    );
    const publicAssociations = plan.subnets
      .filter((p) => p.role !== "private")
      .map(
        (s) =>
          new RouteTableAssociation(
            `${name}-${key(s)}`,
            { subnetId: subnets.get(key(s))!.id, routeTableId: publicRoutes.id },
            parent,
          ),
      );
    if (spec.topology !== "private") this.egress.push(publicDefault, ...publicAssociations);

    if (spec.topology === "private") this.declareNat(name, spec, subnets, vpc, tags, igw);

    this.securityGroupIds = this.declareSecurityGroups(name, spec, vpc, tags);

    // Users reach the API at `api` (public or internal, as api.loadBalancer says). Nodes, kubelets and
    // Cilium always use an internal load balancer: from inside the VPC a public one is reached through
    // NAT, where no security group can tell the cluster's own traffic from anyone else's (kOps's api.internal).
    const loadBalancer = (role: string, internal: boolean) => {
      const subnetRole: SubnetRole = spec.topology === "public" ? "public" : internal ? "private" : "utility";
      return declareApiLoadBalancer(
        name,
        {
          role,
          clusterName: cluster,
          internal,
          subnetIds: spec.network.availabilityZones.map((z) => subnets.get(`${subnetRole}-${z}`)!.id),
          securityGroupId: this.securityGroupIds.apiLb,
          vpcId: vpc.id,
          tags: (n) => tags(n),
        },
        this,
      );
    };
    const api = loadBalancer("api", spec.api.loadBalancer === "internal");
    const internalApi = spec.api.loadBalancer === "internal" ? api : loadBalancer("api-internal", true);

    this.vpcId = vpc.id;
    this.zones = spec.network.availabilityZones;
    const idsOf = (role: SubnetRole) => this.zones.flatMap((z) => subnets.get(`${role}-${z}`)?.id ?? []);
    this.subnetIds = { private: idsOf("private"), utility: idsOf("utility"), public: idsOf("public") };
    this.nodeSubnetIds = this.subnetIds[spec.topology === "public" ? "public" : "private"];
    this.apiTargetGroupArns = [...new Set([api, internalApi])].map((lb) => lb.targetGroupArn);
    this.apiEndpoint = api.dnsName;
    this.apiInternalEndpoint = internalApi.dnsName;
    this.apiInternalZoneId = internalApi.zoneId;
    this.registerOutputs({
      vpcId: this.vpcId,
      subnetIds: this.subnetIds,
      securityGroupIds: this.securityGroupIds,
      apiEndpoint: this.apiEndpoint,
      apiInternalEndpoint: this.apiInternalEndpoint,
    });
  }

  /** NAT gateways in the utility subnets (one per zone, or one for all) and a private route table per zone. */
  private declareNat(
    name: string,
    spec: NetworkSpec,
    subnets: Map<string, Subnet>,
    vpc: Vpc,
    tags: (n: string, extra?: Tags) => Tags,
    igw: InternetGateway,
  ): void {
    const parent = { parent: this };
    const zones = spec.network.availabilityZones;
    const natZones = spec.network.natGateways === "single" ? zones.slice(0, 1) : zones;
    const nats = new Map<string, NatGateway>();
    for (const zone of natZones) {
      const eip = new Eip(`${name}-nat-${zone}`, { domain: "vpc", tags: tags(`${zone}.${spec.clusterName}`) }, parent);
      nats.set(
        zone,
        new NatGateway(
          `${name}-${zone}`,
          {
            allocationId: eip.id,
            subnetId: subnets.get(`utility-${zone}`)!.id,
            tags: tags(`${zone}.${spec.clusterName}`),
          },
          { parent: this, dependsOn: [igw] },
        ),
      );
    }
    for (const zone of zones) {
      const nat = nats.get(zone) ?? nats.get(natZones[0])!;
      const table = new RouteTable(
        `${name}-private-${zone}`,
        { vpcId: vpc.id, tags: tags(`private-${zone}.${spec.clusterName}`) },
        parent,
      );
      const route = new Route(
        `${name}-private-${zone}-default`,
        { routeTableId: table.id, destinationCidrBlock: "0.0.0.0/0", natGatewayId: nat.id },
        parent,
      );
      const association = new RouteTableAssociation(
        `${name}-private-${zone}`,
        { subnetId: subnets.get(`private-${zone}`)!.id, routeTableId: table.id },
        parent,
      );
      this.egress.push(route, association);
    }
  }

  private declareSecurityGroups(
    name: string,
    spec: NetworkSpec,
    vpc: Vpc,
    tags: (n: string, extra?: Tags) => Tags,
  ): Record<GroupRole, pulumi.Output<string>> {
    const parent = { parent: this };
    const groupNames: Record<GroupRole, string> = {
      controlPlane: `masters.${spec.clusterName}`,
      nodes: `nodes.${spec.clusterName}`,
      apiLb: `api-elb.${spec.clusterName}`,
    };
    const descriptions: Record<GroupRole, string> = {
      controlPlane: "Control-plane nodes (and, in ENI mode, their pods)",
      nodes: "Worker nodes (and, in ENI mode, their pods)",
      apiLb: "The Kubernetes API load balancer",
    };
    const ids = {} as Record<GroupRole, pulumi.Output<string>>;
    for (const role of ["controlPlane", "nodes", "apiLb"] as const) {
      const group = new SecurityGroup(
        `${name}-${role}`,
        { name: groupNames[role], description: descriptions[role], vpcId: vpc.id, tags: tags(groupNames[role]) },
        parent,
      );
      ids[role] = group.id;
    }
    for (const rule of securityRules(spec)) {
      const common = {
        securityGroupId: ids[rule.group],
        ipProtocol: rule.protocol,
        fromPort: rule.fromPort,
        toPort: rule.toPort,
        description: rule.description,
        cidrIpv4: "cidr" in rule.peer ? rule.peer.cidr : undefined,
        referencedSecurityGroupId: "group" in rule.peer ? ids[rule.peer.group] : undefined,
        tags: tags(rule.name),
      };
      if (rule.direction === "ingress") new SecurityGroupIngressRule(`${name}-${rule.name}`, common, parent);
      else new SecurityGroupEgressRule(`${name}-${rule.name}`, common, parent);
    }
    return ids;
  }
}

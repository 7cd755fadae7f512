// ClusterNetwork under the mock runtime: resources per topology and NAT mode, tags, routes, rules, LB.
import { expect } from "chai";
import type { Plan } from "../../cli/plan/run";
import { renderCiliumConfig } from "../../components/cilium/configMap";
import { TAGGABLE } from "../../cli/policy/taggable";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";
import { inputs, named, NON_ENI, ofType, planWith } from "../planHelpers";
import {
  CILIUM_HEALTH,
  CILIUM_TUNNEL,
  ETCD_CLIENT,
  ETCD_METRICS,
  ETCD_PEER,
  KUBE_APISERVER,
  KUBELET_API,
} from "../../components/wellKnownPorts";

const eniSpec = validateConfig(baseConfig(), REGION).spec;

const count = (plan: Plan, type: string) => ofType(plan, type).length;
const rules = (plan: Plan) => [
  ...ofType(plan, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"),
  ...ofType(plan, "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"),
];
const coversPort = (r: { inputs: unknown }, port: number, protocol: string) => {
  const i = r.inputs as { ipProtocol: string; fromPort?: number; toPort?: number };
  if (i.ipProtocol === "-1") return true;
  return i.ipProtocol === protocol && (i.fromPort ?? 0) <= port && port <= (i.toPort ?? 65535);
};

describe("ClusterNetwork", () => {
  let eni: Plan;
  let single: Plan;
  let publicPlan: Plan;
  let vxlan: Plan;
  before(async () => {
    eni = await planWith();
    single = await planWith({ "network.natGateways": "single" });
    publicPlan = await planWith({ ...NON_ENI, topology: "public", "api.loadBalancer": "internal" });
    vxlan = await planWith(NON_ENI);
  });

  const expectCounts = (plan: Plan, expected: Record<string, number>) => {
    for (const [type, n] of Object.entries(expected)) expect(count(plan, `aws:ec2/${type}`), type).to.equal(n);
  };

  it("private topology, NAT per zone: private and utility subnet, NAT gateway and route table per zone", () => {
    expectCounts(eni, {
      "vpc:Vpc": 1,
      "subnet:Subnet": 6,
      "internetGateway:InternetGateway": 1,
      "eip:Eip": 3,
      "natGateway:NatGateway": 3,
      "routeTable:RouteTable": 4,
      "route:Route": 4,
      "routeTableAssociation:RouteTableAssociation": 6,
      "securityGroup:SecurityGroup": 3,
    });
    for (const zone of ["us-east-1a", "us-east-1b", "us-east-1c"]) {
      const route = inputs(named(eni, "aws:ec2/route:Route", `network-private-${zone}-default`));
      expect(route).to.include({ destinationCidrBlock: "0.0.0.0/0", natGatewayId: `mock-natgateway-network-${zone}` });
    }
  });

  it("private topology, single NAT: one NAT gateway every private route table uses", () => {
    expectCounts(single, { "eip:Eip": 1, "natGateway:NatGateway": 1, "routeTable:RouteTable": 4 });
    for (const zone of ["us-east-1a", "us-east-1b", "us-east-1c"]) {
      expect(inputs(named(single, "aws:ec2/route:Route", `network-private-${zone}-default`)).natGatewayId).to.equal(
        "mock-natgateway-network-us-east-1a",
      );
    }
    expect(inputs(named(single, "aws:ec2/natGateway:NatGateway", "network-us-east-1a")).subnetId).to.equal(
      "mock-subnet-network-utility-us-east-1a",
    );
  });

  it("public topology: public subnets routed to the internet gateway, no NAT", () => {
    expectCounts(publicPlan, {
      "subnet:Subnet": 3,
      "natGateway:NatGateway": 0,
      "eip:Eip": 0,
      "routeTable:RouteTable": 1,
      "routeTableAssociation:RouteTableAssociation": 3,
    });
    expect(inputs(named(publicPlan, "aws:ec2/route:Route", "network-public-default")).gatewayId).to.equal(
      "mock-internetgateway-network-igw",
    );
    for (const s of ofType(publicPlan, "aws:ec2/subnet:Subnet")) expect(inputs(s).mapPublicIpOnLaunch).to.equal(true);
  });

  it("tags every taggable resource as kOps does, plus the cloud labels", () => {
    for (const plan of [eni, publicPlan]) {
      for (const r of plan.resources.filter((x) => TAGGABLE.has(x.type))) {
        const raw = inputs(r).tags as Record<string, string> | { key: string; value: string }[];
        // Auto Scaling groups list their tags; everything else has a map.
        const tags = Array.isArray(raw) ? Object.fromEntries(raw.map((t) => [t.key, t.value])) : raw;
        const cluster = { KubernetesCluster: "dev.k8s.local", "kubernetes.io/cluster/dev.k8s.local": "owned" };
        // S3 takes at most 10 tags on an object: a group's installer carries the cluster's own only.
        const labels =
          r.type === "aws:s3/bucketObjectv2:BucketObjectv2" ? {} : { team: "platform", environment: "dev" };
        expect(tags, `${r.type} ${r.name}`).to.include({ ...cluster, ...labels });
        expect(tags.Name, `${r.type} ${r.name}`).to.be.a("string");
      }
    }
    const subnetTags = (plan: Plan, name: string) => inputs(named(plan, "aws:ec2/subnet:Subnet", name)).tags;
    expect(subnetTags(eni, "network-private-us-east-1a")).to.include({ "kubernetes.io/role/internal-elb": "1" });
    expect(subnetTags(eni, "network-private-us-east-1a")).not.to.have.property("kubernetes.io/role/elb");
    expect(subnetTags(eni, "network-utility-us-east-1a")).to.include({ "kubernetes.io/role/elb": "1" });
    // Public-topology subnets are the only ones: both load balancer roles, as kOps tags them.
    expect(subnetTags(publicPlan, "network-public-us-east-1a")).to.include({
      "kubernetes.io/role/elb": "1",
      "kubernetes.io/role/internal-elb": "1",
    });
    // Cilium's subnet-tags-filter (ENI mode) matches the private node subnets only, never the utility ones.
    const filterText = renderCiliumConfig(eniSpec)["subnet-tags-filter"];
    const filter = filterText.split(",").map((kv) => kv.split("="));
    expect(filter.length).to.be.greaterThan(0);
    for (const [key, value] of filter) {
      expect(subnetTags(eni, "network-private-us-east-1a")[key]).to.equal(value);
      expect(subnetTags(eni, "network-utility-us-east-1a")).not.to.have.property(key);
    }
  });

  it("opens no SSH anywhere and admits outside addresses only to the API listener, from api.access", async () => {
    for (const plan of [eni, vxlan, publicPlan]) {
      const ingress = ofType(plan, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule");
      for (const r of ingress) {
        const i = inputs(r);
        // Path-MTU discovery's ICMP (fragmentation needed) is the one exception: routers anywhere send it.
        const pmtu = i.ipProtocol === "icmp" && i.fromPort === 3 && i.toPort === 4;
        if (i.cidrIpv4 !== undefined && !pmtu)
          expect(i, r.name).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
        expect(coversPort(r, 22, "tcp") && i.cidrIpv4 !== undefined, r.name).to.equal(false);
      }
    }
    const restricted = await planWith({ "api.access[0]": "203.0.113.0/24", "api.access[1]": "198.51.100.7/32" });
    const sources = ofType(restricted, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
      .filter((r) => inputs(r).ipProtocol === "tcp")
      .map((r) => inputs(r).cidrIpv4)
      .filter(Boolean);
    expect(sources).to.have.members(["203.0.113.0/24", "198.51.100.7/32"]);
  });

  /** Whether `to`'s group admits `from`'s on a port (ICMP: any type) — egress is open for both. */
  const admits = (plan: Plan, from: string, to: string, protocol: "tcp" | "udp" | "icmp", port = 0) =>
    rules(plan).some((r) => {
      const i = inputs(r);
      if (i.securityGroupId !== `mock-securitygroup-network-${to}`) return false;
      if (i.referencedSecurityGroupId !== `mock-securitygroup-network-${from}`) return false;
      if (protocol === "icmp") return i.ipProtocol === "-1" || (i.ipProtocol === "icmp" && i.fromPort === -1);
      return coversPort(r, port, protocol);
    });

  it("follows kOps's traffic model in every mode: nodes reach the control plane but etcd, the control plane reaches nodes", async () => {
    const geneve = await planWith({ ...NON_ENI, "networking.cilium.tunnel": "geneve" });
    const HUBBLE = 4244; // Hubble's server on every node (hubble-listen-address)
    for (const [mode, plan] of [
      ["eni", eni],
      ["vxlan", vxlan],
      ["geneve", geneve],
    ] as const) {
      // Workers reach control-plane kubelets (metrics-server, Prometheus), Hubble, Cilium health, the API, pods.
      for (const port of [KUBE_APISERVER, KUBELET_API, CILIUM_HEALTH, HUBBLE, 53, 8080, 9090, 65535])
        expect(admits(plan, "nodes", "controlPlane", "tcp", port), `${mode} nodes -> cp tcp ${port}`).to.equal(true);
      for (const port of [ETCD_CLIENT, ETCD_PEER, ETCD_METRICS]) {
        expect(admits(plan, "nodes", "controlPlane", "tcp", port), `${mode} etcd ${port} from nodes`).to.equal(false);
        expect(admits(plan, "controlPlane", "controlPlane", "tcp", port), `${mode} etcd ${port} peers`).to.equal(true);
      }
      // The control plane reaches webhooks and kubelets on workers, any port.
      for (const port of [KUBELET_API, 443, 8443, 9443, 1, 65535])
        expect(admits(plan, "controlPlane", "nodes", "tcp", port), `${mode} cp -> nodes tcp ${port}`).to.equal(true);
      for (const [from, to] of [
        ["nodes", "controlPlane"],
        ["controlPlane", "nodes"],
        ["nodes", "nodes"],
        ["controlPlane", "controlPlane"],
      ]) {
        // ICMP: path-MTU discovery ("fragmentation needed") and Cilium's health pings.
        expect(admits(plan, from, to, "icmp"), `${mode} ${from} -> ${to} icmp`).to.equal(true);
        for (const port of Object.values(CILIUM_TUNNEL))
          expect(admits(plan, from, to, "udp", port), `${mode} ${from} -> ${to} udp ${port}`).to.equal(true);
      }
    }
    // One model: the same rules whatever the IPAM mode or tunnel.
    const names = (plan: Plan) =>
      rules(plan)
        .map((r) => r.name)
        .sort();
    expect(names(vxlan)).to.deep.equal(names(eni));
    expect(names(geneve)).to.deep.equal(names(eni));
    // No rule is a tunnel port's own: the tunnel rides on the all-UDP rules.
    expect(rules(eni).filter((r) => Object.values(CILIUM_TUNNEL).includes(inputs(r).fromPort))).to.deep.equal([]);
  });

  it("describes every rule in the characters AWS accepts", () => {
    for (const r of rules(eni).concat(rules(vxlan))) {
      expect(inputs(r).description).to.match(/^[a-zA-Z0-9. _\-:/()#,@[\]+=&;{}!$*]{1,255}$/);
    }
  });

  it("puts the API load balancer in the scheme and subnets api.loadBalancer asks for", () => {
    const lb = (plan: Plan) => inputs(named(plan, "aws:lb/loadBalancer:LoadBalancer", "network-api"));
    expect(lb(eni)).to.include({ internal: false, loadBalancerType: "network" });
    expect(lb(eni).subnets).to.deep.equal(["a", "b", "c"].map((z) => `mock-subnet-network-utility-us-east-1${z}`));
    expect(lb(publicPlan).internal).to.equal(true);
    const listener = inputs(named(eni, "aws:lb/listener:Listener", "network-api-443"));
    expect(listener).to.include({ port: 443, protocol: "TCP" });
    // The API servers listen on the listener's own port (a control-plane node reaches the name at itself).
    const target = inputs(named(eni, "aws:lb/targetGroup:TargetGroup", "network-api"));
    expect(target).to.include({ port: 443, protocol: "TCP" });
    expect(target.healthCheck).to.include({ protocol: "HTTPS", port: "443", path: "/readyz" });
    // The load balancer may reach them on that port, and nothing else.
    const egress = inputs(
      named(eni, "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "network-api-lb-to-control-plane"),
    );
    const ingress = inputs(
      named(eni, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "network-control-plane-api-from-lb"),
    );
    for (const rule of [egress, ingress]) expect(rule).to.include({ ipProtocol: "tcp", fromPort: 443, toPort: 443 });
    expect(egress.referencedSecurityGroupId).to.equal("mock-securitygroup-network-controlPlane");
    expect(ingress.referencedSecurityGroupId).to.equal("mock-securitygroup-network-apiLb");
  });

  it("gives the cluster itself an internal API load balancer its nodes may reach", () => {
    const lbs = (plan: Plan) =>
      ofType(plan, "aws:lb/loadBalancer:LoadBalancer").map((r) => [r.name, inputs(r).internal]);
    expect(lbs(eni)).to.deep.equal([
      ["network-api", false],
      ["network-api-internal", true],
    ]);
    expect(inputs(named(eni, "aws:lb/loadBalancer:LoadBalancer", "network-api-internal")).subnets).to.deep.equal(
      ["a", "b", "c"].map((z) => `mock-subnet-network-private-us-east-1${z}`),
    );
    // With api.loadBalancer internal, the one load balancer serves both.
    expect(lbs(publicPlan)).to.deep.equal([["network-api", true]]);
    const fromCluster = ofType(eni, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule").filter(
      (r) =>
        inputs(r).securityGroupId === "mock-securitygroup-network-apiLb" &&
        inputs(r).referencedSecurityGroupId !== undefined &&
        inputs(r).fromPort === 443,
    );
    expect(fromCluster.map((r) => inputs(r).referencedSecurityGroupId).sort()).to.deep.equal([
      "mock-securitygroup-network-controlPlane",
      "mock-securitygroup-network-nodes",
    ]);
  });
});

// The API's stable name inside the cluster: the private zone, its alias record, and who uses the name.
import { expect } from "chai";
import { internalApiName } from "../../components/network/apiDns";
import { kubeadmConfigsOf } from "../../components/nodes/userData";
import { decodeUserData } from "../../components/nodes/userDataEncoding";
import { diffPlans } from "../../plan/diff";
import type { Plan } from "../../plan/run";
import { parse } from "yaml";
import { inputs, named, ofType, planWith } from "../planHelpers";

const LT = "aws:ec2/launchTemplate:LaunchTemplate";
const userData = (plan: Plan, template: string) => decodeUserData(inputs(named(plan, LT, template)).userData);

describe("ApiDns: api.internal.<clusterName>", () => {
  let dev: Plan;
  let internal: Plan;
  before(async () => {
    dev = await planWith();
    internal = await planWith({ "api.loadBalancer": "internal" });
  });

  it("a private zone for the cluster in its VPC, and an alias to the internal API load balancer", () => {
    const zone = inputs(named(dev, "aws:route53/zone:Zone", "api-dns-zone"));
    expect(zone.name).to.equal("dev.k8s.local");
    expect(zone.vpcs).to.deep.equal([{ vpcId: "mock-vpc-network-vpc" }]);
    const record = inputs(named(dev, "aws:route53/record:Record", "api-dns-api-internal"));
    expect(record).to.include({ name: "api.internal.dev.k8s.local", type: "A" });
    expect(record.zoneId).to.match(/^ZMOCK/);
    const lb = named(dev, "aws:lb/loadBalancer:LoadBalancer", "network-api-internal");
    expect(inputs(lb).internal).to.equal(true);
    expect(record.aliases[0].name).to.match(/^network-api-internal-[0-9a-f]{8}\.elb\./);
    // With an internal user-facing API there is one load balancer, and the alias points at it.
    const only = inputs(named(internal, "aws:route53/record:Record", "api-dns-api-internal"));
    expect(only.aliases[0].name).to.match(/^network-api-[0-9a-f]{8}\.elb\./);
  });

  it("is the control-plane endpoint, the kubelets' API and a certificate SAN; Cilium uses it", () => {
    const name = internalApiName("dev.k8s.local");
    const cp = kubeadmConfigsOf(userData(dev, "control-plane-us-east-1a-template"));
    const cluster = cp.init
      .split("---\n")
      .map((d) => parse(d))
      .find((d) => d.kind === "ClusterConfiguration");
    expect(cluster.controlPlaneEndpoint).to.equal(`${name}:443`);
    expect(cluster.apiServer.certSANs[0]).to.equal(name);
    const join = parse(kubeadmConfigsOf(userData(dev, "nodes-template")).join);
    expect(join.discovery.bootstrapToken.apiServerEndpoint).to.equal(`${name}:443`);
    // Cilium's agent and operator reach the API by it (KUBERNETES_SERVICE_HOST).
    const workloads = [
      ...ofType(dev, "kubernetes:apps/v1:DaemonSet"),
      ...ofType(dev, "kubernetes:apps/v1:Deployment"),
    ].filter((w) => inputs(w).metadata.name.startsWith("cilium"));
    expect(workloads.length).to.be.greaterThan(1);
    for (const w of workloads) {
      const env = inputs(w).spec.template.spec.containers[0].env as { name: string; value?: string }[];
      expect(env.find((e) => e.name === "KUBERNETES_SERVICE_HOST")?.value, inputs(w).metadata.name).to.equal(name);
    }
  });

  it("switching api.loadBalancer public → internal changes no worker launch template", () => {
    const diff = diffPlans(dev, internal);
    // The load balancers change (the user-facing one becomes internal, the separate internal one goes) ...
    expect(diff.changes.filter((c) => c.type === "aws:lb/loadBalancer:LoadBalancer").length).to.be.greaterThan(0);
    // ... and only the control plane's certificate names may follow; workers are told nothing new.
    for (const c of diff.changes.filter((x) => x.type === LT)) expect(c.name).to.match(/^control-plane-/);
    expect(diff.rollingGroups.filter((g) => !g.startsWith("control-plane-"))).to.deep.equal([]);
    expect(userData(internal, "nodes-template")).to.equal(userData(dev, "nodes-template"));
  });

  it("one record per etcd member in the zone, its address the node's: the plan shows it, destroy removes it", async () => {
    const ha = await planWith({ "controlPlane.count": "3" });
    const zones = ["us-east-1a", "us-east-1b", "us-east-1c"];
    for (const z of zones) {
      const record = inputs(named(ha, "aws:route53/record:Record", `api-dns-etcd-${z}`));
      expect(record).to.deep.include({
        name: `etcd-${z}.internal.dev.k8s.local`,
        type: "A",
        ttl: 30,
        records: ["203.0.113.123"],
        allowOverwrite: true,
      });
      expect(record.zoneId).to.match(/^ZMOCK/);
    }
    expect(ofType(ha, "aws:route53/record:Record").filter((r) => r.name.startsWith("api-dns-etcd-"))).to.have.length(3);
    // A record a node wrote after its resource went does not keep the zone from going.
    expect(inputs(named(ha, "aws:route53/zone:Zone", "api-dns-zone")).forceDestroy).to.equal(true);
    const cp = userData(ha, "control-plane-us-east-1b-template");
    expect(cp).to.contain(`ETCD_MEMBERS='${zones.map((z) => `${z}=etcd-${z}.internal.dev.k8s.local`).join(" ")}'`);
    expect(cp).to.match(/PRIVATE_ZONE_ID='ZMOCK/);
  });
});

// The API's stable name inside the cluster: the private zone, its alias record, and who uses the name.
import { expect } from "chai";
import { internalApiName } from "../../components/network/apiDns";
import { JOIN_CREDENTIAL_FILE } from "../../components/nodes/nodeFacts";
import { kubeadmConfigsOf } from "../../components/nodes/userData";
import { diffPlans } from "../../cli/plan/diff";
import type { Plan } from "../../cli/plan/run";
import { parse } from "yaml";
import { declaredBy, inputs, installerOf, installers, named, ofType, planWith } from "../planHelpers";

const LT = "aws:ec2/launchTemplate:LaunchTemplate";
const userData = (plan: Plan, template: string) => installerOf(plan, template.replace(/-template$/, ""));

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
    // A worker reaches it through the credential the control plane signs from that configuration (`kubeadm
    // kubeconfig user`: its server is controlPlaneEndpoint): its join names only the credential's file, and
    // it waits for the API at that name.
    const worker = userData(dev, "nodes-template");
    expect(parse(kubeadmConfigsOf(worker).join).discovery).to.deep.equal({
      file: { kubeConfigPath: JOIN_CREDENTIAL_FILE },
    });
    expect(worker).to.match(new RegExp(`^\\s*API_ENDPOINT='${name.replace(/\./g, "\\.")}'$`, "m"));
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

  it("holds the API's alias only, however many control-plane members: nodes are told no zone to write in", async () => {
    const ha = await planWith({ "controlPlane.count": "3" });
    for (const plan of [dev, ha]) {
      const declared = declaredBy(plan, "cilium-cluster:network:ApiDns", "api-dns").map((r) => `${r.type} ${r.name}`);
      expect(declared.sort()).to.deep.equal([
        "aws:route53/record:Record api-dns-api-internal",
        "aws:route53/zone:Zone api-dns-zone",
      ]);
      expect(ofType(plan, "aws:route53/record:Record").map((r) => r.name)).to.deep.equal(["api-dns-api-internal"]);
    }
    // Only Pulumi writes the zone's records, so a destroy deletes it without forcing.
    expect(inputs(named(ha, "aws:route53/zone:Zone", "api-dns-zone")).forceDestroy ?? false).to.equal(false);
    for (const [group, installer] of installers(ha)) expect(installer, group).not.to.match(/ZMOCK/);
  });

  it("on a control-plane node is its own API server, which listens on the name's port", () => {
    const port = (endpoint: string) => Number(endpoint.split(":").pop());
    const cp = kubeadmConfigsOf(userData(dev, "control-plane-us-east-1a-template"));
    const docs = cp.init.split("---\n").map((d) => parse(d));
    const cluster = docs.find((d) => d.kind === "ClusterConfiguration");
    const init = docs.find((d) => d.kind === "InitConfiguration");
    expect(init.localAPIEndpoint.bindPort).to.equal(port(cluster.controlPlaneEndpoint));
    // A control-plane node that joins binds the same port; a worker runs no API server.
    const join = parse(cp.join);
    expect(join.controlPlane.localAPIEndpoint.bindPort).to.equal(port(cluster.controlPlaneEndpoint));
    expect(parse(kubeadmConfigsOf(userData(dev, "nodes-template")).join)).not.to.have.property("controlPlane");
    // The load balancers forward to that port.
    const target = inputs(named(dev, "aws:lb/targetGroup:TargetGroup", "network-api-internal"));
    expect(target.port).to.equal(init.localAPIEndpoint.bindPort);
  });
});

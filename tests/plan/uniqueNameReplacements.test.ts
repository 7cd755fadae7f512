// Replacements pulumi up cannot carry out: a resource whose name AWS holds unique, replaced under the same
// name while Pulumi creates the replacement first. The plan reports each as an error; the program leaves none
// for the changes users make.
import { expect } from "chai";
import { join } from "path";
import { diffPlans } from "../../plan/diff";
import { examples, PROJECT_DIR } from "../../plan/examples";
import { Plan, runPlan } from "../../plan/run";
import { uniqueNameReplacements } from "../../plan/uniqueNameReplacements";
import { loadStackConfig, StackConfig } from "../../plan/stackConfig";
import { configWith } from "../planHelpers";

const LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer";

async function planOf(config: StackConfig, deployed: Record<string, unknown> = {}): Promise<Plan> {
  const plan = await runPlan(config, "test", true, deployed);
  if (plan.errors) throw new Error(`config invalid: ${JSON.stringify(plan.errors)}`);
  return plan;
}

/** The plan as it would be without the resource option the program sets on the resources of `type`. */
const withoutDeleteFirst = (plan: Plan, type: string): Plan => ({
  ...plan,
  resources: plan.resources.map((r) => (r.type === type ? { ...r, deleteBeforeReplace: false } : r)),
});

describe("replacements that keep a unique name", () => {
  it("a new API load balancer scheme deletes the original first: no error, and without that, the AWS refusal", async () => {
    const before = await planOf(configWith());
    const after = await planOf(configWith({ "api.loadBalancer": "internal" }), before.outputs);
    const diff = diffPlans(before, after);
    expect(diff.changes.filter((c) => c.op === "replace" && c.type === LOAD_BALANCER).map((c) => c.name)).to.eql([
      "network-api",
    ]);
    expect(uniqueNameReplacements(diff)).to.eql([]);
    const created = uniqueNameReplacements(diffPlans(before, withoutDeleteFirst(after, LOAD_BALANCER)));
    expect(created).to.have.length(1);
    expect(created[0].level).to.equal("error");
    expect(created[0].text).to.contain("LoadBalancer network-api is replaced (internal, subnets)");
    expect(created[0].text).to.contain("(DuplicateLoadBalancerName)");
  });

  it("a new IAM path on a stack not yet deployed plans; on a deployed one the program refuses it", async () => {
    const before = await planOf(configWith());
    // Planned as if it were applied over the deployed stack, the roles, policies and profiles would clash.
    const clash = uniqueNameReplacements(diffPlans(before, await planOf(configWith({ "iam.path": "/k8s/" }))));
    expect(clash.map((r) => r.text.split(" is replaced")[0])).to.include.members([
      "pulumi up would fail: Role control-plane-role",
      "pulumi up would fail: Policy control-plane-Bootstrap",
      "pulumi up would fail: InstanceProfile nodes-profile",
    ]);
    expect(clash.every((r) => r.text.endsWith("(EntityAlreadyExists)."))).to.equal(true);
    const refused = await runPlan(configWith({ "iam.path": "/k8s/" }), "test", true, before.outputs);
    expect(refused.resources.map((r) => r.type)).to.eql(["pulumi:pulumi:Stack"]);
    expect(refused.errors?.map((e) => [e.field, e.suggested?.value])).to.eql([["iam.path", "/"]]);
    // The path the stack's roles are at is kept: planned.
    const kept = { ...before.outputs, controlPlaneRoleArn: "arn:aws:iam::000000000000:role/k8s/masters.dev.k8s.local" };
    expect((await runPlan(configWith({ "iam.path": "/k8s/" }), "test", true, kept)).errors).to.equal(undefined);
  });

  // Changes users make to a deployed cluster, on examples that cover both topologies and API schemes.
  const EDITS: Record<string, string>[] = [
    { "api.loadBalancer": "internal" },
    { "api.loadBalancer": "public", "api.access[0]": "203.0.113.7/32" },
    { topology: "public" },
    { topology: "private" },
    { "network.cidr": "10.50.0.0/16" },
    { "network.availabilityZones[3]": "us-east-1d" },
    { "controlPlane.instanceType": "m6i.large" },
    { "nodeGroups[0].instanceType": "m6i.large" },
    { "kubeProxy.enabled": "true" },
    { "addons.applyFrom": "controlPlane" },
    { "cloudLabels.owner": "platform" },
    { "iam.permissionsBoundary": "arn:aws:iam::000000000000:policy/boundary" },
    { "api.access[1]": "198.51.100.0/24" },
  ];
  const STACKS = ["dev", "public", "internal-api", "crd"];

  for (const stack of STACKS) {
    it(`${stack}: no change users make replaces a resource under a name AWS holds unique`, async () => {
      const example = examples().find((e) => e.name === stack)!;
      const base = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file);
      const before = await planOf(base);
      let planned = 0;
      for (const edits of EDITS) {
        const after = await runPlan(configWith(edits, base), "test", true, before.outputs);
        if (after.errors) continue; // a change this stack refuses (a field its settings forbid)
        planned++;
        expect(uniqueNameReplacements(diffPlans(before, after)), JSON.stringify(edits)).to.eql([]);
      }
      expect(planned).to.be.greaterThan(EDITS.length / 2);
    });
  }
});

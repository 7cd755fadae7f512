// Replacements Pulumi carries out by deleting the original first: where the program names a resource, the AWS
// provider asks for it (its name is unique in AWS); the plan applies the same rule and says what goes missing.
// A new iam.path or VPC CIDR, which would delete what the running nodes use, is refused on a deployed stack.
import { expect } from "chai";
import { deletesFirst } from "../../cli/plan/deleteFirst";
import { diffPlans } from "../../cli/plan/diff";
import { assessRisks } from "../../cli/plan/risks";
import { Plan, runPlan } from "../../cli/plan/run";
import { StackConfig } from "../../cli/plan/stackConfig";
import { configWith } from "../planHelpers";

async function planOf(config: StackConfig, deployed: Record<string, unknown> = {}): Promise<Plan> {
  const plan = await runPlan(config, "test", true, deployed);
  if (plan.errors) throw new Error(`config invalid: ${JSON.stringify(plan.errors)}`);
  return plan;
}

const resource = (plan: Plan, name: string) => plan.resources.find((r) => r.name === name)!;
const warnings = (before: Plan, after: Plan) =>
  assessRisks(diffPlans(before, after))
    .filter((r) => r.level === "warning")
    .map((r) => r.text);

describe("replacements that delete first", () => {
  it("the provider's rule: a resource the program names, unless the program says otherwise; never one without a name", async () => {
    const plan = await planOf(configWith());
    // The role leaves it to the provider, which asks for it: the program names the role.
    expect(resource(plan, "control-plane-role").deleteBeforeReplace).to.equal(undefined);
    expect(deletesFirst(resource(plan, "control-plane-role"))).to.equal(true);
    // The load balancer says so itself, for `pulumi up --replace` too.
    expect(resource(plan, "network-api").deleteBeforeReplace).to.equal(true);
    expect(deletesFirst(resource(plan, "network-api"))).to.equal(true);
    // A listener has no name: created before the original goes.
    expect(deletesFirst(resource(plan, "network-api-443"))).to.equal(false);
    expect(deletesFirst({ ...resource(plan, "control-plane-role"), deleteBeforeReplace: false })).to.equal(false);
  });

  it("a new API scheme: the load balancer is gone until its replacement is active, and the plan says so", async () => {
    const before = await planOf(configWith());
    const after = await planOf(configWith({ "api.loadBalancer": "internal" }), before.outputs);
    const endpoint = warnings(before, after).find((w) => w.startsWith("The API endpoints change"))!;
    expect(endpoint).to.contain("network-api keeps its name, which AWS holds unique, so it is deleted before");
    // Were the program to keep the original until the new one exists, nothing would be missing in between.
    const kept = {
      ...after,
      resources: after.resources.map((r) => (r.name === "network-api" ? { ...r, deleteBeforeReplace: false } : r)),
    };
    expect(warnings(before, kept).find((w) => w.startsWith("The API endpoints change"))).not.to.contain(
      "deleted before",
    );
  });

  it("a cluster rename: every resource the program names goes before its replacement, the load balancers in their own risk", async () => {
    const before = await planOf(configWith());
    const after = await planOf(configWith({ clusterName: "dev2.k8s.local" }));
    const listed = warnings(before, after).find((w) => w.startsWith("Deleted before their replacements are created"))!;
    const names = listed.split(": ")[1].split(". ")[0].split(", ");
    expect(names).to.include.members([
      "network-apiLb (SecurityGroup)",
      "network-api (TargetGroup)",
      "control-plane-role (Role)",
      "nodes-profile (InstanceProfile)",
      "drain-queue-queue (Queue)",
    ]);
    expect(names.filter((n) => n.endsWith("(LoadBalancer)"))).to.eql([]);
    // Nothing without a name the program sets: subnets, listeners, keys.
    expect(names.filter((n) => /\((Subnet|Listener|Key|Vpc)\)$/.test(n))).to.eql([]);
  });

  it("iam.path and network.cidr: any on a stack not deployed; on a deployed one, the applied values", async () => {
    const moved = configWith({ "iam.path": "/k8s/", "network.cidr": "10.50.0.0/16" });
    expect((await runPlan(moved, "test")).errors).to.equal(undefined);
    const before = await planOf(configWith());
    const refused = await runPlan(moved, "test", true, before.outputs);
    expect(refused.resources.map((r) => r.type)).to.eql(["pulumi:pulumi:Stack"]);
    expect(refused.errors?.map((e) => [e.type, e.field, e.suggested?.value])).to.eql([
      ["Invalid value", "iam.path", "/"],
      ["Invalid value", "network.cidr", "10.0.0.0/16"],
    ]);
    const atK8s = {
      ...before.outputs,
      controlPlaneRoleArn: "arn:aws:iam::000000000000:role/k8s/masters.dev.k8s.local",
    };
    expect((await runPlan(configWith({ "iam.path": "/k8s/" }), "test", true, atK8s)).errors).to.equal(undefined);
  });
});

// Settings a running cluster cannot take another value of (config/validation/fixedOnceDeployed.ts): recorded
// in the stack's fixedSettings output, any value before the first update, refused after it with the applied
// value as the fix, through the plan as through `pulumi preview`.
import { expect } from "chai";
import { Plan, runPlan } from "../../cli/plan/run";
import { StackConfig } from "../../cli/plan/stackConfig";
import { configWith, NON_ENI } from "../planHelpers";

async function planOf(config: StackConfig, deployed: Record<string, unknown> = {}): Promise<Plan> {
  const plan = await runPlan(config, "test", true, deployed);
  if (plan.errors) throw new Error(`config invalid: ${JSON.stringify(plan.errors)}`);
  return plan;
}

/** The dev stack in the default IPAM mode, whose pods take addresses from network.podCIDR. */
const defaultIpam = (edits: Record<string, string> = {}) => configWith({ ...NON_ENI, ...edits });

const changed = {
  "network.serviceCIDR": "100.72.0.0/13",
  "network.podCIDR": "100.128.0.0/11",
  "kubeProxy.enabled": "false",
  "networking.cilium.enableNodePort": "true",
  topology: "public",
};

describe("settings fixed once the stack is deployed, through the plan", () => {
  it("each is recorded; another value is refused once deployed, with the applied one as the fix", async () => {
    const before = await planOf(defaultIpam());
    expect(before.outputs.fixedSettings).to.eql({
      "network.serviceCIDR": "100.64.0.0/13",
      "network.podCIDR": "100.96.0.0/11",
      "kubeProxy.enabled": "true",
      topology: "private",
    });
    // A stack not deployed takes any valid value.
    expect((await runPlan(defaultIpam(changed), "test")).errors).to.equal(undefined);
    const refused = await runPlan(defaultIpam(changed), "test", true, before.outputs);
    expect(refused.resources.map((r) => r.type)).to.eql(["pulumi:pulumi:Stack"]);
    expect(refused.errors?.map((e) => [e.type, e.field, e.badValue, e.suggested?.value])).to.have.deep.members([
      ["Invalid value", "network.serviceCIDR", "100.72.0.0/13", "100.64.0.0/13"],
      ["Invalid value", "network.podCIDR", "100.128.0.0/11", "100.96.0.0/11"],
      ["Invalid value", "kubeProxy.enabled", "false", "true"],
      ["Invalid value", "topology", "public", "private"],
    ]);
    // The same values again go through.
    expect((await runPlan(defaultIpam(), "test", true, before.outputs)).errors).to.equal(undefined);
  });

  it("the pod range means nothing in ENI mode: not recorded there, and any value goes", async () => {
    const eni = await planOf(configWith());
    expect(eni.outputs.fixedSettings).to.not.have.property("network.podCIDR");
    const podCIDR = { "network.podCIDR": "100.128.0.0/11" };
    expect((await runPlan(configWith(podCIDR), "test", true, eni.outputs)).errors).to.equal(undefined);
  });
});

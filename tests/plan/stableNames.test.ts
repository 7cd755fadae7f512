// Logical names come from stable keys: existing stacks keep their resources (through aliases), and
// reordering a list renames nothing.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { diffPlans } from "../../plan/diff";
import { examples, PROJECT_DIR } from "../../plan/examples";
import { runPlan } from "../../plan/run";
import { loadStackConfig } from "../../plan/stackConfig";
import { inputs, planWith } from "../planHelpers";

const INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";

describe("stable logical names", () => {
  it("keeps every resource of a stack created when api.access rules were named by position", async () => {
    // The eni example's URNs as the program declared them then (two api.access CIDRs, rules `...-access-<i>`).
    // But api-ready: pulumi up now waits for the API without a resource (components/deployWait.ts); the next
    // update deletes it from the state, which touches nothing in AWS (its provider had no delete).
    const before = readFileSync(join(__dirname, "fixtures", "eni-urns-before-stable-names.txt"), "utf8")
      .split("\n")
      .filter((urn) => urn && !urn.endsWith("$pulumi-nodejs:dynamic:Resource::api-ready"));
    const eni = examples().find((e) => e.name === "eni")!;
    const plan = await runPlan(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), eni.file), "eni");
    const access = ["203.0.113.0/24", "198.51.100.10/32"];
    for (const urn of before) {
      const holders = plan.resources.filter((r) => r.urn === urn || r.aliases?.includes(urn));
      expect(
        holders.map((r) => r.name),
        urn,
      ).to.have.length(1);
      const position = /access-(\d+)$/.exec(urn);
      if (position) {
        expect(holders[0].urn, "renamed").not.to.equal(urn);
        expect(inputs(holders[0]).cidrIpv4, urn).to.equal(access[Number(position[1])]);
      }
    }
  });

  it("renames, replaces or updates no rule when api.access is reordered, and only adds a rule for a new CIDR", async () => {
    const a = "203.0.113.0/24";
    const b = "198.51.100.7/32";
    const ab = await planWith({ "api.access[0]": a, "api.access[1]": b });
    const ba = await planWith({ "api.access[0]": b, "api.access[1]": a });
    const onlyA = await planWith({ "api.access[0]": a });
    expect(diffPlans(ab, ba).changes).to.deep.equal([]);
    const added = diffPlans(onlyA, ba).changes;
    expect(added.map((c) => [c.op, c.type, c.name])).to.deep.equal([
      ["create", INGRESS, "network-api-lb-https-from-access-198.51.100.7-32"],
    ]);
  });
});

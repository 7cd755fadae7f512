// Logical names come from stable keys: reordering a list renames nothing.
import { expect } from "chai";
import { diffPlans } from "../../cli/plan/diff";
import { planWith } from "../planHelpers";

const INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";

describe("stable logical names", () => {
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

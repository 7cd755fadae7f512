// The image of each group is resolved once and kept in an SSM parameter, unless imageId names one.
import { expect } from "chai";
import { diffPlans } from "../../cli/plan/diff";
import type { Plan } from "../../cli/plan/run";
import { inputs, named, ofType, planWith } from "../planHelpers";

const LT = "aws:ec2/launchTemplate:LaunchTemplate";
const PARAMETER = "aws:ssm/parameter:Parameter";

describe("pinned images", () => {
  let ha: Plan;
  before(async () => {
    ha = await planWith({
      "controlPlane.count": "3",
      "nodeGroups[1].name": "arm",
      "nodeGroups[1].instanceType": "m7g.large",
    });
  });

  it("each group's launch template takes its image from the group's pinned parameter", () => {
    for (const lt of ofType(ha, LT)) {
      const group = lt.name.replace(/-template$/, "");
      const pin = inputs(named(ha, PARAMETER, `${group}-image`));
      const arch = group === "arm" ? "arm64" : "amd64";
      expect(pin).to.include({ name: `/cilium-cluster/dev.k8s.local/images/${group}/${arch}`, type: "String" });
      expect(pin.insecureValue).to.match(/^ami-[0-9a-f]{17}$/);
      expect(inputs(lt).imageId, group).to.equal(pin.insecureValue);
    }
  });

  it("an imageId set in config is used as is, with no parameter; the plan diff names the image change", async () => {
    const dev = await planWith();
    const set = await planWith({ "nodeGroups[0].imageId": "ami-0123456789abcdef0" });
    expect(ofType(set, PARAMETER).map((p) => p.name)).not.to.include("nodes-image");
    expect(inputs(named(set, LT, "nodes-template")).imageId).to.equal("ami-0123456789abcdef0");
    const diff = diffPlans(dev, set);
    const template = diff.changes.find((c) => c.name === "nodes-template")!;
    expect(template.changes.map((c) => c.path)).to.deep.equal(["imageId"]);
    expect(diff.rollingGroups).to.deep.equal(["nodes-template"]);
  });

  it("a new architecture gets its own parameter, resolved for it", async () => {
    const arm = await planWith({ "nodeGroups[0].instanceType": "m7g.large" });
    expect(inputs(named(arm, PARAMETER, "nodes-image")).name).to.equal(
      "/cilium-cluster/dev.k8s.local/images/nodes/arm64",
    );
  });
});

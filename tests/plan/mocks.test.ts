// The plan's mock cloud: deterministic, clearly fake, loud about what it does not know.
import { expect } from "chai";
import { mockId, planMocks } from "../../cli/plan/mocks";

describe("plan mocks", () => {
  const mocks = planMocks("eu-west-1", ["eu-west-1a", "eu-west-1b"]);
  const call = (token: string, inputs: Record<string, unknown> = {}) => mocks.call({ token, inputs, provider: "" });

  it("answers zones, region, caller identity and partition from the stack config", () => {
    expect((call("aws:index/getAvailabilityZones:getAvailabilityZones") as { names: string[] }).names).to.deep.equal([
      "eu-west-1a",
      "eu-west-1b",
    ]);
    expect(call("aws:index/getRegion:getRegion")).to.include({ name: "eu-west-1" });
    expect(call("aws:index/getCallerIdentity:getCallerIdentity")).to.include({ accountId: "000000000000" });
    expect(call("aws:index/getPartition:getPartition")).to.include({ partition: "aws" });
  });

  it("answers AMI lookups with a deterministic fake image per filter set", () => {
    const amd = call("aws:ec2/getAmi:getAmi", { filters: [{ name: "name", values: ["amd64"] }] }) as { id: string };
    const arm = call("aws:ec2/getAmi:getAmi", { filters: [{ name: "name", values: ["arm64"] }] }) as { id: string };
    expect(amd.id)
      .to.match(/^ami-[0-9a-f]{17}$/)
      .and.not.equal(arm.id);
    expect(call("aws:ec2/getAmi:getAmi", { filters: [{ name: "name", values: ["amd64"] }] })).to.deep.include({
      id: amd.id,
    });
  });

  it("fails loudly, naming the token, for an invoke it does not know", () => {
    expect(() => call("aws:s3/getBucket:getBucket")).to.throw(/aws:s3\/getBucket:getBucket/);
  });

  it("derives IDs from type and name", () => {
    expect(mockId("aws:ec2/vpc:Vpc", "network-vpc")).to.equal("mock-vpc-network-vpc");
    expect(mockId("aws:lb/targetGroup:TargetGroup", "x")).not.to.equal(mockId("aws:lb/loadBalancer:LoadBalancer", "x"));
    expect(mockId("pulumi:providers:kubernetes", "k")).to.equal("mock-provider-k");
  });
});

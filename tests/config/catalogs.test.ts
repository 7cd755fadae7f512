// Values checked against AWS's catalogs, and the errors that name the nearest valid values or the key to set.
import { expect } from "chai";
import { INSTANCE_TYPES, REGIONS } from "../../catalogs/awsEnums";
import { validateConfig } from "../../config/validation/validateConfig";
import { baseConfig, merge, REGION } from "../fixtures";

describe("AWS catalogs in validation", () => {
  it("hold AWS's instance types and regions, not a hand-typed sample", () => {
    expect(INSTANCE_TYPES.size).to.be.greaterThan(1000);
    for (const t of ["t3.medium", "m7i-flex.large", "m8g.metal-24xl", "c7gn.16xlarge"])
      expect(INSTANCE_TYPES.has(t), t).to.equal(true);
    expect(INSTANCE_TYPES.has("t3.mega")).to.equal(false);
    for (const r of ["us-east-1", "eu-central-2", "ap-southeast-7"]) expect(REGIONS.has(r), r).to.equal(true);
  });

  it("checks aws:region against AWS's catalog, naming the closest regions", () => {
    const { errors } = validateConfig(baseConfig(), "us-eest-1");
    expect(errors[0]).to.include({
      field: "aws:region",
      detail: 'not an AWS region; closest: "us-east-1", "us-west-1", "us-east-2"',
    });
  });

  it("names the closest instance types of the same family", () => {
    const { errors } = validateConfig(merge(baseConfig(), { controlPlane: { instanceType: "t3.mega" } }), REGION);
    expect(errors[0].detail).to.equal('not an EC2 instance type; closest: "t3.large", "t3.medium", "t3.micro"');
  });

  it("names the config key that manages an option extraConfig tries to override", () => {
    const edit = { networking: { cilium: { extraConfig: { ipam: "kubernetes" } } } };
    expect(validateConfig(merge(baseConfig(), edit), REGION).errors[0].detail).to.equal(
      "the program sets this Cilium option from networking.cilium.ipam; set that instead",
    );
  });
});

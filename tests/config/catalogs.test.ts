// Values checked against AWS's catalogs, and the errors that name the nearest valid values or the key to set.
import { expect } from "chai";
import { INSTANCE_TYPES, REGIONS } from "../../catalogs/awsEnums";
import { ZONE_LETTERS_BY_REGION } from "../../catalogs/availabilityZones";
import { DEFAULT_KUBERNETES_VERSION, supportedKubernetesRange } from "../../catalogs/ciliumVersions";
import { isRecordedKubernetesRelease, newestPatch } from "../../catalogs/kubernetesReleases";
import { KUBERNETES_RELEASES } from "../../catalogs/recorded/kubernetesReleasesRecord";
import { ZONE_LETTERS } from "../../config/subnetPlan";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, REGION } from "../fixtures";

describe("the Kubernetes release record", () => {
  it("has releases of every minor a shipped Cilium line supports, the default among them", () => {
    const { oldest, newest } = supportedKubernetesRange();
    for (let minor = oldest; minor <= newest; minor++)
      expect(newestPatch(`1.${minor}`), `1.${minor}`).not.to.equal(undefined);
    expect(isRecordedKubernetesRelease(DEFAULT_KUBERNETES_VERSION)).to.equal(true);
  });

  it("lists each minor's patches from .0 without gaps, in order, dated where the source answered", () => {
    const versions = KUBERNETES_RELEASES.map((r) => r.version);
    versions.forEach((version, i) => {
      const [, minor, patch] = version.split(".").map(Number);
      const previous = versions[i - 1]?.split(".").map(Number);
      const follows = previous?.[1] === minor ? previous[2] + 1 === patch : patch === 0;
      expect(follows, `${version} after ${versions[i - 1]}`).to.equal(true);
    });
    for (const r of KUBERNETES_RELEASES) if (r.date) expect(r.date, r.version).to.match(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("the availability zone record", () => {
  it("records regions AWS has, with zone letters that have a subnet slot", () => {
    for (const [region, letters] of Object.entries(ZONE_LETTERS_BY_REGION)) {
      expect(REGIONS.has(region), region).to.equal(true);
      for (const letter of letters) expect(ZONE_LETTERS, `${region}${letter}`).to.include(letter);
    }
  });
});

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

// What AWS and the nodes would reject is refused before anything is declared: each case measured on a
// plan that passed before, as the user sees it (the message and its fix are the product).
import { expect } from "chai";
import { parse } from "yaml";
import { newestPatch, recordedUntil } from "../../catalogs/kubernetesReleases";
import { readRawConfig } from "../../config/read";
import { formatWithFix } from "../../config/validation/report";
import { validateConfig } from "../../components/clusterConfigValidation";
import { setPath, StackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { configWith } from "../planHelpers";

/** Every error line of a stack config, as the plan and the program print it. */
function report(config: StackConfig): string[] {
  const { raw, region } = readRawConfig(toRuntimeConfig(config));
  return validateConfig(raw, region).errors.map(formatWithFix);
}

/** The dev stack with values as YAML gives them (`1.30` is a number). */
function withYaml(yaml: string): StackConfig {
  const config = configWith();
  Object.assign(config, parse(yaml));
  return config;
}

describe("values that must exist upstream", () => {
  it("a Kubernetes release that does not exist names the newest patch of its minor", () => {
    const newest = newestPatch("1.35")!.version;
    expect(report(withYaml("cilium-cluster:kubernetesVersion: 1.35.99"))).to.deep.equal([
      `kubernetesVersion: Invalid value: "1.35.99": not a Kubernetes release: the newest 1.35 release is ${newest} ` +
        `(recorded until ${recordedUntil()}; npm run update-catalogs records newer ones) ` +
        `(fix: pulumi config set --path 'kubernetesVersion' '${newest}')`,
    ]);
  });

  it("a version YAML read as a number says to quote it, and fixes it with the minor's newest patch", () => {
    const newest = newestPatch("1.30")!.version;
    expect(report(withYaml("cilium-cluster:kubernetesVersion: 1.30"))).to.deep.equal([
      `kubernetesVersion: Invalid value: "1.3": must be a Kubernetes release X.Y.Z such as ${newest} (the newest ` +
        "1.30 release); YAML reads an unquoted 1.30 as the number 1.3: quote versions in the stack file " +
        `(fix: pulumi config set --path 'kubernetesVersion' '${newest}')`,
    ]);
  });

  it("a zone the region does not have names its zones and how to pass a new one knowingly", () => {
    const config = withYaml("aws:region: eu-west-1");
    setPath(config, "network.availabilityZones[0]", "eu-west-1a");
    setPath(config, "network.availabilityZones[1]", "eu-west-1b");
    setPath(config, "network.availabilityZones[2]", "eu-west-1d");
    expect(report(config)).to.deep.equal([
      'network.availabilityZones[2]: Invalid value: "eu-west-1d": eu-west-1 has no zone eu-west-1d: its zones are ' +
        "eu-west-1a, eu-west-1b, eu-west-1c (catalogs/availabilityZones.ts); for a zone AWS opened since, check it " +
        "(aws ec2 describe-availability-zones --region eu-west-1) and run " +
        "pulumi config set --path 'network.uncatalogedZones[0]' eu-west-1d " +
        "(fix: pulumi config set --path 'network.availabilityZones[2]' 'eu-west-1c')",
    ]);
    setPath(config, "network.uncatalogedZones[0]", "eu-west-1d");
    expect(report(config)).to.deep.equal([]);
  });

  it("a zone of a region the catalog has no zones of is acknowledged by the fix", () => {
    const config = withYaml(
      "{ aws:region: us-iso-east-1, cilium-cluster:network: { availabilityZones: [us-iso-east-1a] } }",
    );
    expect(report(config)).to.deep.equal([
      'network.availabilityZones[0]: Invalid value: "us-iso-east-1a": the zone catalog records no zones of ' +
        "us-iso-east-1: check that the zone exists (aws ec2 describe-availability-zones --region us-iso-east-1) and " +
        "run pulumi config set --path 'network.uncatalogedZones[0]' us-iso-east-1a " +
        "(fix: pulumi config set --path 'network.uncatalogedZones[0]' 'us-iso-east-1a')",
    ]);
  });

  it("an extraConfig key Cilium does not read says what it was meant to be, and moves its value there", () => {
    const config = configWith();
    setPath(config, "networking.cilium.extraConfig.policy-audit-mdoe", "true", "string");
    expect(report(config)).to.deep.equal([
      "networking.cilium.extraConfig.policy-audit-mdoe: Forbidden: not an option Cilium 1.20 reads " +
        '(catalogs/recorded/ciliumOptionsRecord.ts); it would be ignored; did you mean "policy-audit-mode"? ' +
        "(fix: pulumi config rm --path 'networking.cilium.extraConfig.policy-audit-mdoe' && " +
        "pulumi config set --path 'networking.cilium.extraConfig.policy-audit-mode' --type string 'true')",
    ]);
  });

  it("a nested number where text is meant says to quote it", () => {
    expect(report(withYaml("cilium-cluster:cloudLabels: { costCenter: 1234 }"))).to.deep.equal([
      "cloudLabels.costCenter: Invalid value: 1234: must be a string; 1234 was read as a number: quote it in the " +
        "stack file, or set it with --type string (fix: pulumi config set --path 'cloudLabels.costCenter' --type string '1234')",
    ]);
  });
});

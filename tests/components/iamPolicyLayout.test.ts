// The instance roles' policy layout against IAM's quotas: one managed policy per feature, each within 6,144
// characters, at most 10 on a role, names within 128 characters; for every example and for the longest
// cluster name the config allows, in the heaviest mode (ENI with the EBS CSI driver).
import { expect } from "chai";
import { join } from "path";
import { policyName } from "../../components/iam/instanceRole";
import {
  MANAGED_POLICIES_PER_ROLE,
  MANAGED_POLICY_CHARACTERS,
  POLICY_NAME_CHARACTERS,
  rolePolicies,
  roleSources,
} from "../../components/iam/rolePolicies";
import { STATEMENT_SOURCES } from "../../components/features";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { readRawConfig } from "../../config/read";
import type { ClusterSpec } from "../../config/types";
import { validateConfig } from "../../components/clusterConfigValidation";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { inputs, ofType, planWith } from "../planHelpers";

const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: "000000000000" };
/** The longest cluster name the config accepts: a DNS name of 63 characters. */
const LONGEST = `${"a".repeat(51)}.example.com`;

function exampleSpec(file: string): ClusterSpec {
  const { raw, region } = readRawConfig(toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), file)));
  const { spec, errors } = validateConfig({ ...raw }, region);
  expect(errors, file).to.deep.equal([]);
  return spec;
}

/** Every policy's size as IAM counts it: compact JSON, as the program sends it (no whitespace outside strings). */
const sizes = (spec: ClusterSpec) =>
  (["control-plane", "node"] as const).map((role) => ({
    role,
    policies: rolePolicies(STATEMENT_SOURCES, role, spec, { ...AT, region: spec.region }).map((p) => ({
      sidPrefix: p.source.sidPrefix,
      size: JSON.stringify(p.document).length,
    })),
  }));

describe("the instance roles' managed policies", () => {
  const specs = examples().map((e) => [e.name, exampleSpec(e.file)] as const);

  it("fit IAM's 6,144 characters each, and at most 10 on a role, in every example", () => {
    for (const [name, spec] of specs) {
      for (const { role, policies } of sizes(spec)) {
        expect(policies.length, `${name} ${role}`).to.be.within(1, MANAGED_POLICIES_PER_ROLE);
        for (const p of policies)
          expect(p.size, `${name} ${role} ${p.sidPrefix}`).to.be.at.most(MANAGED_POLICY_CHARACTERS);
      }
    }
  });

  it("fit with the longest cluster name, in ENI mode with the EBS CSI driver", () => {
    const ha = specs.find(([name]) => name === "ha")![1];
    expect(ha.networking.cilium.ipam).to.equal("eni");
    expect(ha.addons.ebsCsiDriver.enabled).to.equal(true);
    const long = { ...ha, clusterName: LONGEST };
    const [controlPlane] = sizes(long);
    // One inline policy of the same statements would pass IAM's 10,240 characters for a role's inline policies.
    expect(controlPlane.policies.reduce((sum, p) => sum + p.size, 0)).to.be.greaterThan(10240);
    for (const { role, policies } of sizes(long)) {
      expect(policies.length, role).to.be.at.most(MANAGED_POLICIES_PER_ROLE);
      for (const p of policies) expect(p.size, `${role} ${p.sidPrefix}`).to.be.at.most(MANAGED_POLICY_CHARACTERS);
    }
  });

  it("have the same features whatever the account's coordinates, as declaring them before those resolve needs", () => {
    const elsewhere: AwsCoordinates = { partition: "aws-cn", region: "cn-north-1", accountId: "123456789012" };
    for (const [name, spec] of specs) {
      for (const role of ["control-plane", "node"] as const) {
        const sources = rolePolicies(STATEMENT_SOURCES, role, spec, elsewhere).map((p) => p.source);
        expect(roleSources(STATEMENT_SOURCES, role, spec), `${name} ${role}`).to.deep.equal(sources);
      }
    }
  });

  it("keep policy names within IAM's 128 characters beside the longest role name", () => {
    const longestPrefix = Math.max(...STATEMENT_SOURCES.map((s) => s.sidPrefix.length));
    const role = "m".repeat(64);
    for (const source of STATEMENT_SOURCES) {
      const name = policyName(role, source.sidPrefix);
      expect(name.length).to.be.at.most(POLICY_NAME_CHARACTERS);
      expect(name).to.equal(`${role}.${source.sidPrefix}`);
    }
    expect(64 + 1 + longestPrefix).to.be.at.most(POLICY_NAME_CHARACTERS);
  });

  it("are declared for the longest cluster name, one per feature, each attached to its role", async () => {
    const plan = await planWith({ clusterName: LONGEST, "addons.ebsCsiDriver.enabled": "true" });
    const policies = ofType(plan, "aws:iam/policy:Policy").map(inputs);
    const attachments = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").map(inputs);
    expect(policies.length).to.equal(attachments.length);
    for (const p of policies) {
      expect(p.name.length, p.name).to.be.at.most(POLICY_NAME_CHARACTERS);
      expect(p.policy.length, p.name).to.be.at.most(MANAGED_POLICY_CHARACTERS);
      const attachment = attachments.filter((a) => a.policyArn === `arn:aws:iam::000000000000:policy/${p.name}`);
      expect(attachment, p.name).to.have.length(1);
      expect(p.name.startsWith(`${attachment[0].role}.`), p.name).to.equal(true);
    }
    for (const role of new Set(attachments.map((a) => a.role as string)))
      expect(attachments.filter((a) => a.role === role).length, role).to.be.at.most(MANAGED_POLICIES_PER_ROLE);
  });
});

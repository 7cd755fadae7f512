// The policy pack, run offline against every example's planned resources, and against bad resources.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { examples, GOLDEN_DIR, PROJECT_DIR } from "../cli/plan/examples";
import { goldenResources } from "./planHelpers";
import { USER_DATA_BUDGET_BYTES } from "../components/nodes/userDataBudget";
import type { StackValidationArgs } from "@pulumi/policy";
import { policies, stackPolicies } from "../cli/policy/guardRails";
import { stackViolations, violations } from "../cli/policy/offline";

const base64 = (text: string) => Buffer.from(text).toString("base64");
const goodTemplate = {
  metadataOptions: { httpTokens: "required" },
  blockDeviceMappings: [{ deviceName: "/dev/sda1", ebs: { encrypted: "true" } }],
  userData: base64("#!/bin/bash\n"),
  tags: { KubernetesCluster: "c" },
};
const iamPolicy = (name: string, actions: string[]) => ({
  name,
  path: "/",
  policy: JSON.stringify({ Statement: [{ Action: actions, Effect: "Allow", Resource: "*" }] }),
  tags: { KubernetesCluster: "c" },
});
const POLICY = "aws:iam/policy:Policy";
const ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment";
/** A policy granting `actions`, attached to `role`, as the plan holds them. */
const attached = (role: string, actions: string[]) => [
  { type: POLICY, name: "p", urn: "urn:p", inputs: iamPolicy(`${role}.Feature`, actions) },
  {
    type: ATTACHMENT,
    name: "a",
    urn: "urn:a",
    inputs: { role, policyArn: `arn:aws:iam::000000000000:policy/${role}.Feature` },
  },
];

describe("policy pack", () => {
  for (const example of examples()) {
    it(`passes every resource of ${example.name}`, () => {
      const resources = goldenResources(example.name);
      const found = resources.flatMap((r) => violations(r.type, r.inputs as Record<string, unknown>, r.name));
      expect(found).to.deep.equal([]);
      expect(stackViolations(resources)).to.deep.equal([]);
    });
  }

  const bad: [string, string, Record<string, unknown>, string][] = [
    [
      "IMDSv1 allowed",
      "aws:ec2/launchTemplate:LaunchTemplate",
      { ...goodTemplate, metadataOptions: { httpTokens: "optional" } },
      "imdsv2-required",
    ],
    [
      "unencrypted root volume",
      "aws:ec2/launchTemplate:LaunchTemplate",
      { ...goodTemplate, blockDeviceMappings: [{ deviceName: "/dev/sda1", ebs: { encrypted: "false" } }] },
      "encrypted-root-volumes",
    ],
    [
      "user data over the budget",
      "aws:ec2/launchTemplate:LaunchTemplate",
      { ...goodTemplate, userData: base64("x".repeat(USER_DATA_BUDGET_BYTES + 1)) },
      "user-data-budget",
    ],
    [
      "SSH from anywhere",
      "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
      {
        cidrIpv4: "0.0.0.0/0",
        ipProtocol: "tcp",
        fromPort: 22,
        toPort: 22,
        tags: { KubernetesCluster: "c", Name: "ssh" },
      },
      "no-open-ingress",
    ],
    [
      "443 from anywhere on a rule that is not the API listener's",
      "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
      {
        cidrIpv4: "0.0.0.0/0",
        ipProtocol: "tcp",
        fromPort: 443,
        toPort: 443,
        tags: { KubernetesCluster: "c", Name: "web" },
      },
      "no-open-ingress",
    ],
    [
      "inline open ingress",
      "aws:ec2/securityGroup:SecurityGroup",
      { ingress: [{ cidrBlocks: ["0.0.0.0/0"] }], tags: { KubernetesCluster: "c" } },
      "no-open-ingress",
    ],
    ["wildcard action", POLICY, iamPolicy("masters.c.Feature", ["ec2:*"]), "no-wildcard-iam-actions"],
    ["untagged subnet", "aws:ec2/subnet:Subnet", { tags: { Name: "x" } }, "cluster-tag-required"],
    [
      "untagged Auto Scaling group",
      "aws:autoscaling/group:Group",
      { tags: [{ key: "Name", value: "x" }] },
      "cluster-tag-required",
    ],
  ];
  for (const [what, type, props, rule] of bad) {
    it(`fails a deliberately bad resource: ${what}`, () => {
      const found = violations(type, props);
      expect(found.map((f) => f.split(":")[0])).to.deep.equal([rule]);
    });
  }

  it("lets only the control-plane role hold a policy that changes ENIs, by the role it is attached to", () => {
    const mutation = ["ec2:AssignPrivateIpAddresses"];
    expect(stackViolations(attached("nodes.c", mutation))).to.deep.equal([
      "a (aws:iam/rolePolicyAttachment:RolePolicyAttachment): eni-actions-control-plane-only: ec2:AssignPrivateIpAddresses in nodes.c.Feature on role nodes.c, not the control plane's",
    ]);
    expect(stackViolations(attached("masters.c", mutation))).to.deep.equal([]);
    // The control plane's policy attached to the node role as well: the attachment decides, not the name.
    const [policy] = attached("masters.c", mutation);
    const onNodes = {
      type: ATTACHMENT,
      name: "b",
      urn: "urn:b",
      inputs: { role: "nodes.c", policyArn: "arn:aws:iam::000000000000:policy/masters.c.Feature" },
    };
    expect(stackViolations([policy, onNodes]).map((f) => f.split(": ")[1])).to.deep.equal([
      "eni-actions-control-plane-only",
    ]);
    expect(stackViolations(attached("nodes.c", ["ec2:DescribeNetworkInterfaces"]))).to.deep.equal([]);
  });

  it("finds an attachment's policy through the engine's property dependencies while its ARN is unknown", () => {
    const [policy] = attached("nodes.c", ["ec2:AssignPrivateIpAddresses"]);
    const dependency = { type: POLICY, name: "p", urn: "urn:p", props: policy.inputs };
    const attachment = {
      type: ATTACHMENT,
      name: "a",
      urn: "urn:a",
      props: { role: "nodes.c" }, // policyArn: unknown in a preview before the policy exists
      propertyDependencies: { policyArn: [dependency] },
    };
    const rule = stackPolicies.find((p) => p.name === "eni-actions-control-plane-only")!;
    const found: string[] = [];
    rule.validateStack({ resources: [dependency, attachment] } as unknown as StackValidationArgs, (m) => found.push(m));
    expect(found).to.have.length(1);
  });

  it("counts user data in bytes before base64, as AWS does, against AWS's 16 KB", () => {
    const sizes = (text: string) =>
      violations("aws:ec2/launchTemplate:LaunchTemplate", { ...goodTemplate, userData: base64(text) }).map(
        (f) => f.split(":")[0],
      );
    expect(sizes("x".repeat(16384))).to.deep.equal(["user-data-budget"]);
    expect(sizes("x".repeat(16385))).to.deep.equal(["user-data-size", "user-data-budget"]);
    // 8193 two-byte characters: under the limit in characters, over it in bytes.
    expect(sizes("é".repeat(8193))).to.deep.equal(["user-data-size", "user-data-budget"]);
    expect(policies.find((p) => p.name === "user-data-budget")!.enforcementLevel).to.equal("advisory");
  });

  it("reports the API listener's rule for an api.access of 0.0.0.0/0 as an advisory finding, not a violation", () => {
    const rule = {
      cidrIpv4: "0.0.0.0/0",
      ipProtocol: "tcp",
      fromPort: 443,
      toPort: 443,
      tags: { KubernetesCluster: "c", Name: "api-lb-https-from-access-0.0.0.0-0" },
    };
    const type = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";
    expect(violations(type, rule).map((f) => f.split(":")[0])).to.deep.equal(["api-open-to-internet"]);
    expect(policies.find((p) => p.name === "api-open-to-internet")!.enforcementLevel).to.equal("advisory");
    // A rule named for another CIDR is not the listener's rule for 0.0.0.0/0: a violation.
    const Name = "api-lb-https-from-access-10.0.0.0-8";
    expect(
      violations(type, { ...rule, tags: { ...rule.tags, Name } }).map((f) => f.split(":")[0]),
      Name,
    ).to.deep.equal(["no-open-ingress"]);
    // A narrower api.access is neither.
    const narrow = {
      ...rule,
      cidrIpv4: "203.0.113.7/32",
      tags: { ...rule.tags, Name: "api-lb-https-from-access-203.0.113.7-32" },
    };
    expect(violations(type, narrow)).to.deep.equal([]);
  });

  it("lets path-MTU discovery's ICMP (fragmentation needed) in from anywhere, and no other ICMP", () => {
    const type = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";
    const icmp = { cidrIpv4: "0.0.0.0/0", ipProtocol: "icmp", tags: { KubernetesCluster: "c", Name: "pmtu" } };
    expect(violations(type, { ...icmp, fromPort: 3, toPort: 4 })).to.deep.equal([]);
    expect(violations(type, { ...icmp, fromPort: 8, toPort: 0 }).map((f) => f.split(":")[0])).to.deep.equal([
      "no-open-ingress",
    ]);
    expect(violations(type, { ...icmp, fromPort: -1, toPort: -1 })).to.have.length(1);
  });
});

describe("npm run policy", () => {
  const script = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [require.resolve("ts-node/dist/bin"), "--transpile-only", "cli/runPolicyPack.ts", ...args],
      {
        cwd: PROJECT_DIR,
        encoding: "utf8",
      },
    );

  it("passes the golden plans and fails a plan with a violation, naming the resource and the policy", () => {
    expect(script(join(GOLDEN_DIR, "dev"), join(GOLDEN_DIR, "ha")).status).to.equal(0);
    const dir = mkdtempSync(join(tmpdir(), "policy-"));
    const bad = { ...goodTemplate, metadataOptions: { httpTokens: "optional" } };
    writeFileSync(
      join(dir, "resources.json"),
      JSON.stringify([{ type: "aws:ec2/launchTemplate:LaunchTemplate", name: "nodes-template", inputs: bad }]),
    );
    const result = script(dir);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.contain("nodes-template (aws:ec2/launchTemplate:LaunchTemplate): imdsv2-required:");
  });
});

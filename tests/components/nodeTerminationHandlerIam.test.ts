// The drain's AWS permissions by policy simulation: the control plane receives from its own queue only and
// completes lifecycle actions of this cluster's groups only; workers get none of it; only the cluster's
// EventBridge rules send to the queue. And the role policies, grown by it, within IAM's inline limit.
import { expect } from "chai";
import { join } from "path";
import {
  interruptionRules,
  queueArn,
  queuePolicy,
  ruleName,
} from "../../components/drain/nodeTerminationHandlerEvents";
import { policyDocument, type PolicyDocument } from "../../components/iam/policyDocument";
import { rolePolicy } from "../../components/iam/rolePolicies";
import { nodeTerminationHandler } from "../../components/iam/sources/nodeTerminationHandlerRights";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../config/validation/validateConfig";
import { examples, PROJECT_DIR } from "../../plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../plan/stackConfig";
import { specWith } from "../fixtures";
import { ACCOUNT_ID, may } from "../iamSimulator";

const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: ACCOUNT_ID };
const spec = specWith({});
const CLUSTER = spec.clusterName;
const QUEUE = queueArn(CLUSTER, AT);
const OTHER_QUEUE = queueArn("other.k8s.local", AT);
const GROUP = (name: string) =>
  `arn:aws:autoscaling:us-east-1:${ACCOUNT_ID}:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/${name}`;
const ours = { "aws:ResourceTag/KubernetesCluster": CLUSTER };
const theirs = { "aws:ResourceTag/KubernetesCluster": "other.k8s.local" };

/** IAM's limit on a role's inline policies, in characters but whitespace (IAM and STS quotas). */
const INLINE_POLICY_LIMIT = 10240;

describe("the termination handler's permissions", () => {
  const controlPlane = rolePolicy("control-plane", spec, AT);
  const nodes = rolePolicy("node", spec, AT);
  const own = policyDocument(nodeTerminationHandler.statements("control-plane", spec, AT));

  it("let the control plane, through its own statements, take events from its queue and complete this cluster's drains", async () => {
    for (const policy of [own, controlPlane]) {
      for (const action of ["sqs:ReceiveMessage", "sqs:DeleteMessage"])
        expect(await may(policy, action, QUEUE), action).to.equal(true);
      expect(await may(policy, "ec2:DescribeInstances", "*")).to.equal(true);
      expect(await may(policy, "autoscaling:CompleteLifecycleAction", GROUP(`nodes.${CLUSTER}`), ours)).to.equal(true);
    }
  });

  it("refuse another queue, another cluster's groups and an untagged group, and whatever else the queue allows", async () => {
    for (const policy of [own, controlPlane]) {
      for (const action of ["sqs:ReceiveMessage", "sqs:DeleteMessage"])
        expect(await may(policy, action, OTHER_QUEUE), action).to.equal(false);
      for (const action of ["sqs:SendMessage", "sqs:PurgeQueue", "sqs:SetQueueAttributes", "sqs:DeleteQueue"])
        expect(await may(policy, action, QUEUE), action).to.equal(false);
      expect(await may(policy, "autoscaling:CompleteLifecycleAction", GROUP("nodes.other.k8s.local"), theirs)).to.equal(
        false,
      );
      expect(await may(policy, "autoscaling:CompleteLifecycleAction", GROUP("untagged"))).to.equal(false);
    }
    // The handler's own statements complete nothing more than they name: no heartbeat, no other group call.
    for (const action of [
      "autoscaling:RecordLifecycleActionHeartbeat",
      "autoscaling:PutLifecycleHook",
      "autoscaling:TerminateInstanceInAutoScalingGroup",
    ])
      expect(await may(own, action, GROUP(`nodes.${CLUSTER}`), ours), action).to.equal(false);
  });

  it("give workers no access to the queue, and no statement of the handler's", async () => {
    for (const action of ["sqs:ReceiveMessage", "sqs:DeleteMessage"])
      expect(await may(nodes, action, QUEUE), action).to.equal(false);
    expect(nodeTerminationHandler.statements("node", spec, AT)).to.deep.equal([]);
  });
});

describe("the termination handler's queue", () => {
  const policy = queuePolicy(CLUSTER, AT);
  const rule = (cluster: string, at = AT) =>
    `arn:aws:events:${at.region}:${at.accountId}:rule/${ruleName(cluster, interruptionRules(cluster)[0])}`;
  const nothing: PolicyDocument = { Version: "2012-10-17", Statement: [] };
  const send = (principal: string, context: Record<string, string>) =>
    may(nothing, "sqs:SendMessage", QUEUE, context, { principal, resourcePolicy: policy });

  it("takes events from EventBridge on behalf of the cluster's rules, every one of them", async () => {
    for (const r of interruptionRules(CLUSTER)) {
      const arn = `arn:aws:events:us-east-1:${ACCOUNT_ID}:rule/${ruleName(CLUSTER, r)}`;
      expect(await send("events.amazonaws.com", { "aws:SourceArn": arn }), r.name).to.equal(true);
    }
  });

  it("takes nothing from another cluster's or another account's rules, another service, or a role", async () => {
    expect(await send("events.amazonaws.com", { "aws:SourceArn": rule("other.k8s.local") })).to.equal(false);
    expect(
      await send("events.amazonaws.com", { "aws:SourceArn": rule(CLUSTER, { ...AT, accountId: "111111111111" }) }),
    ).to.equal(false);
    expect(await send("events.amazonaws.com", {})).to.equal(false);
    expect(await send("sns.amazonaws.com", { "aws:SourceArn": rule(CLUSTER) })).to.equal(false);
    expect(await send(`arn:aws:iam::111111111111:role/anyone`, { "aws:SourceArn": rule(CLUSTER) })).to.equal(false);
  });
});

describe("the role policies with the drain's statements", () => {
  it("stay within IAM's inline policy limit for every example", () => {
    for (const example of examples()) {
      const { raw, region } = readRawConfig(
        toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file)),
      );
      const { spec: exampleSpec } = validateConfig(raw, region);
      for (const role of ["control-plane", "node"] as const) {
        // Compact JSON: whitespace outside strings is all IAM leaves out, and the statements hold none inside.
        const size = JSON.stringify(rolePolicy(role, exampleSpec, { ...AT, region: exampleSpec.region })).length;
        expect(size, `${example.name} ${role}`).to.be.at.most(INLINE_POLICY_LIMIT);
      }
    }
  });
});

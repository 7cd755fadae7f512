// The drain's AWS permissions by policy simulation: the control plane receives from its own queue only and
// completes lifecycle actions of this cluster's groups only; workers get none of it; only the cluster's
// EventBridge rules send to the queue.
import { expect } from "chai";
import {
  interruptionRules,
  queueArn,
  queuePolicy,
  ruleName,
} from "../../components/drain/nodeTerminationHandlerEvents";
import { policyDocument, type PolicyDocument } from "../../components/iam/policyDocument";
import { nodeTerminationHandler } from "../../components/drain/nodeTerminationHandlerRights";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { specWith } from "../fixtures";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";

const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: ACCOUNT_ID };
const spec = specWith({});
const CLUSTER = spec.clusterName;
const QUEUE = queueArn(CLUSTER, AT);
const OTHER_QUEUE = queueArn("other.k8s.local", AT);
const GROUP = (name: string) =>
  `arn:aws:autoscaling:us-east-1:${ACCOUNT_ID}:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/${name}`;
const ours = { "aws:ResourceTag/KubernetesCluster": CLUSTER };
const theirs = { "aws:ResourceTag/KubernetesCluster": "other.k8s.local" };

describe("the termination handler's permissions", () => {
  const controlPlane = attachedPolicies("control-plane", spec, AT);
  const nodes = attachedPolicies("node", spec, AT);
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

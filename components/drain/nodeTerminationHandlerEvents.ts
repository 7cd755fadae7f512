/**
 * What reaches aws-node-termination-handler's queue, as kOps builds it (`pkg/model/awsmodel/
 * nodeterminationhandler.go`): one EventBridge rule per kind of event the handler drains a node for, each
 * sending to the queue, which only those rules may send to. Names and documents only. Pure.
 */
import type { AwsCoordinates } from "../iam/statementSource";
import { awsName } from "../naming";
import { DRAIN_LIFECYCLE_HOOK } from "../nodes/lifecycleHooks";

export interface InterruptionRule {
  /** kOps's name of the rule, after the cluster's (`<cluster>-ASGLifecycle`). */
  name: string;
  description: string;
  pattern: Record<string, unknown>;
}

/**
 * The rules, kOps's four (no rebalance recommendations: kOps leaves them out unless asked, and a
 * recommendation is no termination). The lifecycle rule takes only the drain hook's actions of this
 * cluster's groups, whose names all end in `.<cluster>` (nodeLaunchTemplate.ts): the handler completes every
 * action it receives, and the etcd hook's is the etcd-leave service's to complete. The other events name an
 * instance only; the handler drops those of instances without the cluster's tag.
 */
export function interruptionRules(clusterName: string): InterruptionRule[] {
  return [
    {
      name: "ASGLifecycle",
      description: `Auto Scaling terminating an instance of cluster ${clusterName}: its node is drained`,
      pattern: {
        source: ["aws.autoscaling"],
        "detail-type": ["EC2 Instance-terminate Lifecycle Action"],
        detail: {
          LifecycleHookName: [DRAIN_LIFECYCLE_HOOK],
          AutoScalingGroupName: [{ suffix: `.${clusterName}` }],
        },
      },
    },
    {
      name: "SpotInterruption",
      description: "EC2 reclaiming a Spot instance: its node is drained",
      pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"] },
    },
    {
      name: "InstanceStateChange",
      description: "An instance stopping or terminating outside Auto Scaling: its node is drained",
      pattern: { source: ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"] },
    },
    {
      name: "InstanceScheduledChange",
      description: "EC2 scheduling an instance's retirement or maintenance: its node is drained first",
      pattern: {
        source: ["aws.health"],
        "detail-type": ["AWS Health Event"],
        detail: { service: ["EC2"], eventTypeCategory: ["scheduledChange"] },
      },
    },
  ];
}

/** A rule's name in EventBridge (at most 64 of `[.-_A-Za-z0-9]`). */
export const ruleName = (clusterName: string, rule: Pick<InterruptionRule, "name">): string =>
  awsName(`${clusterName}-${rule.name}`, 64, /[^A-Za-z0-9._-]/g);

/** The queue's name: kOps's `<cluster with dashes>-nth` (at most 80 of `[-_A-Za-z0-9]`). */
export const queueName = (clusterName: string): string => awsName(`${clusterName}-nth`, 80, /[^A-Za-z0-9_-]/g);

export const queueArn = (clusterName: string, at: AwsCoordinates): string =>
  `arn:${at.partition}:sqs:${at.region}:${at.accountId}:${queueName(clusterName)}`;

const ruleArn = (clusterName: string, rule: InterruptionRule, at: AwsCoordinates) =>
  `arn:${at.partition}:events:${at.region}:${at.accountId}:rule/${ruleName(clusterName, rule)}`;

/**
 * The queue's policy: EventBridge may send to it on behalf of the cluster's rules, and no one else may
 * (kOps's two service principals, with the source rules as AWS advises against a confused deputy).
 */
export function queuePolicy(clusterName: string, at: AwsCoordinates) {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "InterruptionRulesSend",
        Effect: "Allow",
        Principal: { Service: ["events.amazonaws.com", "sqs.amazonaws.com"] },
        Action: "sqs:SendMessage",
        Resource: queueArn(clusterName, at),
        Condition: {
          ArnEquals: { "aws:SourceArn": interruptionRules(clusterName).map((r) => ruleArn(clusterName, r, at)) },
        },
      },
    ],
  };
}

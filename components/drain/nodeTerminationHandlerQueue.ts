/**
 * NodeTerminationHandlerQueue: the AWS side of aws-node-termination-handler in queue mode, as kOps declares
 * it: an encrypted SQS queue that holds an event as long as the drain hook holds its instance, and the
 * EventBridge rules that send the cluster's interruption events to it (nodeTerminationHandlerEvents.ts).
 * The drain hook on every group is NodeLaunchTemplate's (lifecycleHooks.ts); the handler itself is
 * NodeTerminationHandler, its permissions the `nodeTerminationHandler` statement source.
 *
 * Nothing here names a group, so no change of the groups touches the rules: a group's deletion drains its
 * instances through the rules as they are.
 */
import { EventRule } from "@pulumi/aws/cloudwatch/eventRule";
import { EventTarget } from "@pulumi/aws/cloudwatch/eventTarget";
import { Queue } from "@pulumi/aws/sqs/queue";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AwsCoordinates } from "../iam/statementSource";
import { clusterTags } from "../tags";
import { TIMEOUTS } from "../timeouts";
import { interruptionRules, queueName, queuePolicy, ruleName } from "./nodeTerminationHandlerEvents";

export interface NodeTerminationHandlerQueueArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<AwsCoordinates>;
}

export class NodeTerminationHandlerQueue extends pulumi.ComponentResource {
  readonly queueUrl: pulumi.Output<string>;

  constructor(name: string, args: NodeTerminationHandlerQueueArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:drain:NodeTerminationHandlerQueue", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const physical = queueName(spec.clusterName);
    const queue = new Queue(
      `${name}-queue`,
      {
        name: physical,
        messageRetentionSeconds: TIMEOUTS.drain.hookHeartbeatSeconds,
        sqsManagedSseEnabled: true,
        policy: args.coordinates.apply((at) => JSON.stringify(queuePolicy(spec.clusterName, at))),
        tags: clusterTags(spec, physical),
      },
      parent,
    );
    for (const rule of interruptionRules(spec.clusterName)) {
      const ruleNamed = ruleName(spec.clusterName, rule);
      const declared = new EventRule(
        `${name}-${rule.name}`,
        {
          name: ruleNamed,
          description: rule.description,
          eventPattern: JSON.stringify(rule.pattern),
          tags: clusterTags(spec, ruleNamed),
        },
        parent,
      );
      new EventTarget(
        `${name}-${rule.name}`,
        { rule: declared.name, arn: queue.arn, targetId: "node-termination-handler" },
        parent,
      );
    }
    this.queueUrl = queue.url;
    this.registerOutputs({ queueUrl: this.queueUrl });
  }
}

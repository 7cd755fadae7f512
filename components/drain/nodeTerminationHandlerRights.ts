/**
 * aws-node-termination-handler (on the control plane): what its queue processor calls in v1.25.5
 * (`pkg/monitor/sqsevent/sqs-monitor.go`): it receives and deletes its queue's events, looks up each event's
 * instance (DescribeInstances, which takes no resource scope) and completes the drain hook's lifecycle action,
 * on this cluster's groups only (kOps's NTH statement, `pkg/model/iam/iam_builder.go`). Its README also lists
 * `autoscaling:DescribeAutoScalingInstances` and `autoscaling:DescribeTags`, which that release no longer
 * calls, and no heartbeat is sent (the handler's HEARTBEAT_INTERVAL is off).
 */
import { queueArn } from "./nodeTerminationHandlerEvents";
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type { Statement } from "../iam/policyDocument";
import type { StatementSource } from "../iam/statementSource";

export const nodeTerminationHandler: StatementSource = {
  sidPrefix: "NodeTerminationHandler",
  statements: (role, spec, at): Statement[] => {
    if (role !== "control-plane") return [];
    return [
      {
        Sid: "NodeTerminationHandlerQueue",
        Effect: "Allow",
        Action: ["sqs:DeleteMessage", "sqs:ReceiveMessage"],
        Resource: queueArn(spec.clusterName, at),
      },
      {
        Sid: "NodeTerminationHandlerInstances",
        Effect: "Allow",
        Action: ["ec2:DescribeInstances"],
        Resource: "*",
      },
      {
        Sid: "NodeTerminationHandlerLifecycle",
        Effect: "Allow",
        Action: ["autoscaling:CompleteLifecycleAction"],
        Resource: "*",
        Condition: { StringEquals: { [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName } },
      },
    ];
  },
};

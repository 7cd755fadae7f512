/**
 * Statements every instance role carries so that nodes can be operated: Session Manager (to get onto a node
 * whose bootstrap failed, without SSH) and the bootstrap's own health report to its Auto Scaling group. One
 * source per feature, each with its own Sid.
 */
import type { ClusterSpec } from "../../spec/types";
import type { Statement } from "./policyDocument";

/**
 * The actions of AWS's AmazonSSMManagedInstanceCore, minus `ssm:GetParameter` and `ssm:GetParameters`: that
 * policy grants them on every parameter, which would let a worker read the control plane's keys
 * (BootstrapSecretsRead grants each role its own). Session Manager needs UpdateInstanceInformation and the
 * ssmmessages channels; the rest keeps Run Command, State Manager and Inventory working as with the managed
 * policy.
 */
export const SESSION_MANAGER_ACTIONS = [
  "ssm:DescribeAssociation",
  "ssm:GetDeployablePatchSnapshotForInstance",
  "ssm:GetDocument",
  "ssm:DescribeDocument",
  "ssm:GetManifest",
  "ssm:ListAssociations",
  "ssm:ListInstanceAssociations",
  "ssm:PutInventory",
  "ssm:PutComplianceItems",
  "ssm:PutConfigurePackageResult",
  "ssm:UpdateAssociationStatus",
  "ssm:UpdateInstanceAssociationStatus",
  "ssm:UpdateInstanceInformation",
  "ssmmessages:CreateControlChannel",
  "ssmmessages:CreateDataChannel",
  "ssmmessages:OpenControlChannel",
  "ssmmessages:OpenDataChannel",
  "ec2messages:AcknowledgeMessage",
  "ec2messages:DeleteMessage",
  "ec2messages:FailMessage",
  "ec2messages:GetEndpoint",
  "ec2messages:GetMessages",
  "ec2messages:SendReply",
] as const;

export function sessionManagerStatement(): Statement {
  return { Sid: "SessionManager", Effect: "Allow", Action: [...SESSION_MANAGER_ACTIONS], Resource: "*" };
}

/** A node that has not joined by its deadline marks itself unhealthy; only in its own cluster's groups. */
export function instanceHealthStatement(spec: ClusterSpec): Statement {
  return {
    Sid: "BootstrapHealthReport",
    Effect: "Allow",
    Action: ["autoscaling:SetInstanceHealth"],
    Resource: "*",
    Condition: { StringEquals: { "autoscaling:ResourceTag/KubernetesCluster": spec.clusterName } },
  };
}

/** Every node-operation statement, for both instance roles. */
export function nodeOperationStatements(spec: ClusterSpec): Statement[] {
  return [sessionManagerStatement(), instanceHealthStatement(spec)];
}

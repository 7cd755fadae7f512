/** Session Manager on every node: the way onto a node whose bootstrap failed, without SSH. */
import type { StatementSource } from "../iam/statementSource";

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

export const sessionManager: StatementSource = {
  sidPrefix: "SessionManager",
  statements: () => [
    { Sid: "SessionManagerAccess", Effect: "Allow", Action: [...SESSION_MANAGER_ACTIONS], Resource: "*" },
  ],
};

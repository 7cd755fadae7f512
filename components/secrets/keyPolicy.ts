/**
 * The key policy of the cluster's KMS key (docs/iam.md). The account's administrators manage the key (its
 * policy too, so no one is locked out) but cannot use it by the key policy alone; use goes through SSM, for
 * this cluster's parameters, to principals whose IAM policies allow it (the instance roles' statements, the
 * deployer, whoever mints an admin kubeconfig); and whatever the node role's IAM policy says, the key never
 * opens a control-plane parameter for it nor encrypts anything for it. Pure.
 */
import type { Condition } from "../iam/policyDocument";
import type { AwsCoordinates } from "../iam/statementSource";
import { parameterArn, parameterPrefix } from "./paths";

export interface KeyPolicyStatement {
  Sid: string;
  Effect: "Allow" | "Deny";
  Principal: { AWS: string };
  Action: string[];
  Resource: "*";
  Condition?: Condition;
}

export interface KeyPolicyArgs {
  clusterName: string;
  at: AwsCoordinates & { dnsSuffix: string };
  nodeRoleArn: string;
}

/** AWS's key-administrator actions: every management call, no cryptographic one. */
export const KEY_ADMINISTRATION_ACTIONS = [
  "kms:CancelKeyDeletion",
  "kms:Create*",
  "kms:Delete*",
  "kms:Describe*",
  "kms:Disable*",
  "kms:Enable*",
  "kms:Get*",
  "kms:List*",
  "kms:Put*",
  "kms:Revoke*",
  "kms:RotateKeyOnDemand",
  "kms:ScheduleKeyDeletion",
  "kms:TagResource",
  "kms:UntagResource",
  "kms:Update*",
];

export function secretsKeyPolicy(args: KeyPolicyArgs): { Version: "2012-10-17"; Statement: KeyPolicyStatement[] } {
  const { at, clusterName } = args;
  const account = { AWS: `arn:${at.partition}:iam::${at.accountId}:root` };
  const node = { AWS: args.nodeRoleArn };
  const context = "kms:EncryptionContext:PARAMETER_ARN";
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "KeyAdministration",
        Effect: "Allow",
        Principal: account,
        Action: KEY_ADMINISTRATION_ACTIONS,
        Resource: "*",
      },
      {
        // Delegated to IAM, through SSM only and for this cluster's parameters only.
        Sid: "ClusterParametersThroughSsm",
        Effect: "Allow",
        Principal: account,
        Action: ["kms:Decrypt", "kms:Encrypt"],
        Resource: "*",
        Condition: {
          StringEquals: { "kms:CallerAccount": at.accountId, "kms:ViaService": `ssm.${at.region}.${at.dnsSuffix}` },
          StringLike: { [context]: `${parameterArn(at, `/cilium-cluster/${clusterName}/`)}*` },
        },
      },
      {
        Sid: "NodeRoleOnlyNodeParameters",
        Effect: "Deny",
        Principal: node,
        Action: ["kms:Decrypt"],
        Resource: "*",
        Condition: { StringNotLike: { [context]: `${parameterArn(at, parameterPrefix(clusterName, "node"))}*` } },
      },
      {
        Sid: "NodeRoleNeverEncrypts",
        Effect: "Deny",
        Principal: node,
        Action: ["kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"],
        Resource: "*",
      },
    ],
  };
}

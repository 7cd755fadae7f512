/**
 * The key policy of the cluster's KMS key (docs/iam.md). The account's administrators manage the key (its
 * policy too, so no one is locked out) but cannot use it by the key policy alone; use goes through SSM, for
 * this cluster's parameters, to principals whose IAM policies allow it (the instance roles' statements, the
 * deployer; admins need none: they assume the cluster's admin role); and whatever the node role's IAM policy says, the key opens
 * for it only the node parameters and the instances' join credentials (`instance/`; which instance reads
 * which is the node role's tag condition, KMS cannot tell), never a control-plane parameter, and encrypts
 * nothing for it. The etcd snapshots in the backup bucket are encrypted under it too (SSE-KMS): through S3
 * and for that bucket only, the control-plane role encrypts and decrypts, the restore principals of the
 * config decrypt, and no one else, whatever IAM grants (the account is not delegated S3 use, so
 * `AmazonS3ReadOnlyAccess` cannot open them). Pure.
 */
import type { Condition } from "../iam/policyDocument";
import type { AwsCoordinates } from "../iam/statementSource";
import { instanceCredentialPrefix, parameterArn, parameterPrefix } from "../nodes/secretPaths";

export interface KeyPolicyStatement {
  Sid: string;
  Effect: "Allow" | "Deny";
  Principal: { AWS: string | string[] };
  Action: string[];
  Resource: "*";
  Condition?: Condition;
}

export interface KeyPolicyArgs {
  clusterName: string;
  at: AwsCoordinates & { dnsSuffix: string };
  nodeRoleArn: string;
  /** The control-plane role: the writer of the etcd snapshots. */
  controlPlaneRoleArn: string;
  /** The backup bucket's ARN: S3 names it as the encryption context `aws:s3:arn` (with S3 Bucket Keys). */
  backupBucketArn: string;
  /** Who besides the control plane may decrypt the snapshots (`controlPlane.backupRestorePrincipals`). */
  restorePrincipals: readonly string[];
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
  // Through S3 for the backup bucket: with a Bucket Key the context is the bucket's ARN, without one the object's.
  const throughS3ForSnapshots = {
    StringEquals: { "kms:CallerAccount": at.accountId, "kms:ViaService": `s3.${at.region}.${at.dnsSuffix}` },
    StringLike: { "kms:EncryptionContext:aws:s3:arn": [args.backupBucketArn, `${args.backupBucketArn}/*`] },
  };
  const restorers: KeyPolicyStatement[] =
    args.restorePrincipals.length === 0
      ? []
      : [
          {
            Sid: "SnapshotsRestorePrincipalsDecrypt",
            Effect: "Allow",
            Principal: { AWS: [...args.restorePrincipals] },
            Action: ["kms:Decrypt"],
            Resource: "*",
            Condition: throughS3ForSnapshots,
          },
        ];
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
        // The etcd-backup timer's uploads (GenerateDataKey), multipart ones included (Decrypt).
        Sid: "SnapshotsControlPlaneEncrypt",
        Effect: "Allow",
        Principal: { AWS: args.controlPlaneRoleArn },
        Action: ["kms:GenerateDataKey", "kms:Decrypt"],
        Resource: "*",
        Condition: throughS3ForSnapshots,
      },
      ...restorers,
      {
        // The node parameters and the instances' credentials (which instance reads which: NodeCredentialsReadOwn).
        Sid: "NodeRoleOnlyNodeParameters",
        Effect: "Deny",
        Principal: node,
        Action: ["kms:Decrypt"],
        Resource: "*",
        Condition: {
          StringNotLike: {
            [context]: [
              `${parameterArn(at, parameterPrefix(clusterName, "node"))}*`,
              `${parameterArn(at, instanceCredentialPrefix(clusterName))}*`,
            ],
          },
        },
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

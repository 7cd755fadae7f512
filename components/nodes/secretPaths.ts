/**
 * Where the cluster's bootstrap secrets live: encrypted SSM parameters under a prefix of the cluster's
 * own, split by who may read them, under the cluster's own KMS key. Workers read `node/`; the control
 * plane reads both. Beside them, `instance/`: each worker instance's own join credential, which the control
 * plane writes and only that instance reads (instanceCredentialPrefix).
 */
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type { Statement } from "../iam/policyDocument";
import type { AwsCoordinates } from "../iam/statementSource";
import { awsName } from "../naming";

export type SecretAudience = "control-plane" | "node";

export function parameterPrefix(clusterName: string, audience: SecretAudience): string {
  return `/cilium-cluster/${clusterName}/${audience}/`;
}

/**
 * The instances' join credentials: `<prefix><instance id>` holds the kubeconfig the control plane minted for
 * that worker's node name (bootstrap/node-credentials.sh), until the worker's Node exists. Outside `node/`,
 * which every worker reads: a worker reads only its own, by the tag below.
 */
export function instanceCredentialPrefix(clusterName: string): string {
  return `/cilium-cluster/${clusterName}/instance/`;
}

/**
 * The tag an instance's credential parameter is created with: `<node role's RoleId>:<instance id>`, which is
 * IAM's `aws:userid` for that instance's role session and no other caller's (IAM user guide, "aws:userid").
 */
export const INSTANCE_CREDENTIAL_SESSION_TAG = "cilium-cluster/session";

/** The alias of the cluster's KMS key: what a node names when it writes a SecureString (aliases take no dots). */
export function secretsKeyAlias(clusterName: string): string {
  return `alias/${awsName(`cilium-cluster/${clusterName}`, 250, /[^A-Za-z0-9/_-]/g)}`;
}

/** A parameter's ARN: what SSM gives KMS as the encryption context `PARAMETER_ARN` of its value. */
export function parameterArn(at: AwsCoordinates, name: string): string {
  return `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter${name}`;
}

/**
 * What an instance role's KMS statements name: the account's keys in the region, narrowed by the cluster tag
 * to the cluster's own (the role policies are rendered before the key, and its ARN, exist).
 */
export function clusterKeyScope(clusterName: string, at: AwsCoordinates) {
  return {
    Resource: `arn:${at.partition}:kms:${at.region}:${at.accountId}:key/*`,
    tag: { [`aws:ResourceTag/${CLUSTER_TAG}`]: clusterName },
  };
}

/**
 * The statement that lets an instance role use the cluster's key for ACTION on the SecureStrings named like
 * PARAMETERS: SSM encrypts and decrypts a standard SecureString with kms:Encrypt and kms:Decrypt, the
 * parameter's ARN as encryption context.
 */
export function parameterKeyStatement(
  sid: string,
  action: "kms:Encrypt" | "kms:Decrypt",
  clusterName: string,
  at: AwsCoordinates,
  parameters: string | string[],
): Statement {
  const key = clusterKeyScope(clusterName, at);
  return {
    Sid: sid,
    Effect: "Allow",
    Action: [action],
    Resource: key.Resource,
    Condition: { StringEquals: key.tag, StringLike: { "kms:EncryptionContext:PARAMETER_ARN": parameters } },
  };
}

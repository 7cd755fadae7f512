/**
 * The workers' join credentials (bootstrap/node-credentials.sh, bootstrap/join-credential.sh): the control
 * plane mints, for each worker instance that has no Node yet, a short-lived kubeconfig for that instance's
 * node name, and writes it to the instance's own parameter under `instance/`, tagged with the instance role
 * session's `aws:userid` (`<node role's RoleId>:<instance id>`); a worker reads its own parameter and no
 * other. Control-plane nodes sign their own credential with the CA they hold: nothing here for that.
 */
import {
  parameterKeyStatement,
  instanceCredentialPrefix,
  INSTANCE_CREDENTIAL_SESSION_TAG,
  parameterArn,
} from "../nodes/secretPaths";
import { nodeRoleName } from "../iam/roleNames";
import type { ClusterSpec } from "../../config/types";
import type { Statement } from "../iam/policyDocument";
import type { AwsCoordinates, StatementSource } from "../iam/statementSource";

/** IAM's policy variable for the caller's unique id: `<role id>:<instance id>` for an instance role's session. */
export const CALLER_USERID = "${aws:userid}";

/** The ARNs of the instance credentials: `arn:…:parameter/cilium-cluster/<cluster>/instance/*`. */
export function instanceCredentialsArn(clusterName: string, at: AwsCoordinates): string {
  return `${parameterArn(at, instanceCredentialPrefix(clusterName))}*`;
}

/** The node role's ARN: `arn:<partition>:iam::<account>:role<iam.path><name>` (`iam.path` is `/` or `/…/`). */
export function nodeRoleArn(spec: ClusterSpec, at: AwsCoordinates): string {
  return `arn:${at.partition}:iam::${at.accountId}:role${spec.iam.path}${nodeRoleName(spec.clusterName)}`;
}

function issuerStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const credentials = instanceCredentialsArn(spec.clusterName, at);
  return [
    {
      // aws ssm put-parameter --tags: the credential is created with its session tag, which takes the tagging
      // action too; under instance/ only.
      Sid: "NodeCredentialsWrite",
      Effect: "Allow",
      Action: ["ssm:PutParameter", "ssm:AddTagsToResource"],
      Resource: credentials,
    },
    {
      // aws ssm delete-parameter: a credential goes once its instance has a Node, or is gone.
      Sid: "NodeCredentialsDelete",
      Effect: "Allow",
      Action: ["ssm:DeleteParameter"],
      Resource: credentials,
    },
    {
      // aws ssm get-parameters-by-path (names only, nothing decrypted): which credentials are out. SSM
      // authorizes the call against the path in the request, not the parameters it returns.
      Sid: "NodeCredentialsList",
      Effect: "Allow",
      Action: ["ssm:GetParametersByPath"],
      Resource: parameterArn(at, instanceCredentialPrefix(spec.clusterName).replace(/\/$/, "")),
    },
    // SSM encrypts each credential with the cluster's key.
    parameterKeyStatement("NodeCredentialsEncrypt", "kms:Encrypt", spec.clusterName, at, credentials),
    {
      // aws iam get-role: the node role's RoleId, the first half of its sessions' aws:userid (the tag's value).
      // Reading that role only; nothing else of IAM.
      Sid: "NodeCredentialsNodeRoleId",
      Effect: "Allow",
      Action: ["iam:GetRole"],
      Resource: nodeRoleArn(spec, at),
    },
  ];
}

function workerStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const credentials = instanceCredentialsArn(spec.clusterName, at);
  return [
    {
      // aws ssm get-parameter --with-decryption: the instance's own credential only. Its tag is the aws:userid
      // of that instance's role session, so no other instance's session matches, and a parameter without the
      // tag matches none. Nothing on a worker lists, writes or tags parameters.
      Sid: "NodeCredentialsReadOwn",
      Effect: "Allow",
      Action: ["ssm:GetParameter"],
      Resource: credentials,
      Condition: { StringEquals: { [`ssm:resourceTag/${INSTANCE_CREDENTIAL_SESSION_TAG}`]: CALLER_USERID } },
    },
    // SSM decrypts it with the cluster's key. KMS has no key to tell one instance's parameter from another's:
    // this opens any instance credential of the cluster, to SSM (the key policy takes no direct call). What
    // binds a worker to its own is the read above: the ciphertext comes only through GetParameter, which the
    // worker may call on no other instance's parameter.
    parameterKeyStatement("NodeCredentialsDecrypt", "kms:Decrypt", spec.clusterName, at, credentials),
  ];
}

export const nodeCredentials: StatementSource = {
  sidPrefix: "NodeCredentials",
  statements: (role, spec, at) => (role === "control-plane" ? issuerStatements(spec, at) : workerStatements(spec, at)),
};

/**
 * The node bootstrap (user data): its group's installer in the bootstrap bucket, the cluster's secrets, its group's launch lifecycle hook, and in ENI mode
 * the instance type's ENI limits.
 */
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { parameterArn, parameterKeyStatement, parameterPrefix, SecretAudience } from "./secretPaths";
import type { Statement } from "../iam/policyDocument";
import type { RoleKind, StatementSource } from "../iam/statementSource";
import { eniMode } from "../../config/eniMode";
import { BOOTSTRAP_PREFIX, bootstrapBucketName } from "./bootstrapBundle";

/** What each role's bootstrap reads: the control plane also the CA keys; a worker only the node files. */
const AUDIENCES: Record<RoleKind, SecretAudience[]> = {
  "control-plane": ["control-plane", "node"],
  node: ["node"],
};

/** Max pods from the instance type's ENI limits (kOps's rule), on every role whose pods use ENI addresses. */
const instanceTypeLimits: Statement = {
  Sid: "BootstrapInstanceTypeLimits",
  Effect: "Allow",
  Action: ["ec2:DescribeInstanceTypes"],
  Resource: "*",
};

export const nodeBootstrap: StatementSource = {
  sidPrefix: "Bootstrap",
  statements: (role, spec, at) => {
    const readable = AUDIENCES[role].map((a) => `${parameterArn(at, parameterPrefix(spec.clusterName, a))}*`);
    const bucket = `arn:${at.partition}:s3:::${bootstrapBucketName(spec.clusterName, at.accountId, at.region)}`;
    return [
      {
        // The loader in user data fetches its group's installer: only its own role's (bootstrapBundle.ts).
        Sid: "BootstrapScriptRead",
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: `${bucket}/${BOOTSTRAP_PREFIX}${role}/*`,
      },
      {
        Sid: "BootstrapSecretsRead",
        Effect: "Allow",
        // The bootstrap reads each parameter by name (aws ssm get-parameter); nothing on a node lists them.
        Action: ["ssm:GetParameter"],
        Resource: readable,
      },
      // The cluster's key opens this role's parameters and no others.
      parameterKeyStatement("BootstrapSecretsDecrypt", "kms:Decrypt", spec.clusterName, at, readable),
      {
        // A node that has joined completes its group's launch hook: only in its own cluster's groups of its
        // own role (the role tag, kOps's), so a worker completes no control-plane hook (the etcd one included).
        // The role is shared by the role's groups; IAM has no key for the hook's name.
        Sid: "BootstrapLaunchHook",
        Effect: "Allow",
        Action: ["autoscaling:CompleteLifecycleAction"],
        Resource: "*",
        Condition: {
          StringEquals: {
            [`autoscaling:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName,
            [`autoscaling:ResourceTag/${ROLE_TAGS[role]}`]: "1",
          },
        },
      },
      {
        // Which group the instance is in, and whether it still waits on the hook. Describe actions take no
        // resource or tag condition.
        Sid: "BootstrapLaunchHookLookup",
        Effect: "Allow",
        Action: ["autoscaling:DescribeAutoScalingInstances"],
        Resource: "*",
      },
      ...(eniMode(spec.networking.cilium) ? [instanceTypeLimits] : []),
    ];
  },
};

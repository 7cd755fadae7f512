/**
 * The node bootstrap (user data): the cluster's secrets, its health report to Auto Scaling, and in ENI mode
 * the instance type's ENI limits.
 */
import { parameterPrefix, SecretAudience } from "../../secrets/paths";
import { usesSecondaryIP } from "../../nodes/bootstrapConfig";
import type { Statement } from "../policyDocument";
import type { RoleKind, StatementSource } from "../statementSource";

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
  statements: (role, spec, at) => [
    {
      // SecureStrings under the AWS-managed aws/ssm key decrypt through SSM without a KMS grant.
      Sid: "BootstrapSecretsRead",
      Effect: "Allow",
      Action: ["ssm:GetParameter", "ssm:GetParameters", "ssm:GetParametersByPath"],
      Resource: AUDIENCES[role].map(
        (a) => `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter${parameterPrefix(spec.clusterName, a)}*`,
      ),
    },
    {
      // A node that has not joined by its deadline marks itself unhealthy; only in its own cluster's groups.
      Sid: "BootstrapHealthReport",
      Effect: "Allow",
      Action: ["autoscaling:SetInstanceHealth"],
      Resource: "*",
      Condition: { StringEquals: { "autoscaling:ResourceTag/KubernetesCluster": spec.clusterName } },
    },
    ...(usesSecondaryIP(spec) ? [instanceTypeLimits] : []),
  ],
};

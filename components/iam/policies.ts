/**
 * The instance roles' policy documents, from the spec and the account's coordinates. Pure and
 * deterministic. Each statement says which component needs it; nothing is granted that no component
 * of this cluster calls.
 */
import type { ClusterSpec } from "../../spec/types";
import { parameterPrefix, SecretAudience } from "../secrets/paths";
import { controlPlaneStateStatements } from "./controlPlaneState";
import { policyDocument, PolicyDocument, Statement } from "./policyDocument";

export interface AwsCoordinates {
  partition: string;
  region: string;
  accountId: string;
}

/** The actions the seed (kOps's `addCiliumEniPermissions` as first written) grants the operator. */
export const SEED_ENI_ACTIONS = [
  "ec2:DescribeSubnets",
  "ec2:AttachNetworkInterface",
  "ec2:AssignPrivateIpAddresses",
  "ec2:UnassignPrivateIpAddresses",
  "ec2:CreateNetworkInterface",
  "ec2:DescribeNetworkInterfaces",
  "ec2:DescribeVpcPeeringConnections",
  "ec2:DescribeSecurityGroups",
  "ec2:DetachNetworkInterface",
  "ec2:DeleteNetworkInterface",
  "ec2:ModifyNetworkInterfaceAttribute",
  "ec2:DescribeVpcs",
] as const;

/** What Cilium 1.18/1.19's ENI docs add: route tables, tags (ENI GC), instance-type limits, tag-on-create. */
export const CILIUM_DOCUMENTED_ENI_ACTIONS = [
  "ec2:DescribeRouteTables",
  "ec2:DescribeTags",
  "ec2:DescribeInstanceTypes",
  "ec2:CreateTags",
] as const;

/** Every action the Cilium operator may use in ENI mode. */
export const ENI_ACTIONS: readonly string[] = [...SEED_ENI_ACTIONS, ...CILIUM_DOCUMENTED_ENI_ACTIONS];

/** ENI actions that change or destroy interfaces, held back to the cluster's own ENIs where AWS can tell. */
const ENI_DESTRUCTIVE = ["ec2:DeleteNetworkInterface", "ec2:DetachNetworkInterface"];

const usesEni = (spec: ClusterSpec) => spec.networking.cilium.ipam === "eni";

function secretsStatement(spec: ClusterSpec, at: AwsCoordinates, audiences: SecretAudience[]): Statement {
  // The bootstrap (user data) reads the cluster's secrets with the instance role; SecureStrings under
  // the AWS-managed aws/ssm key decrypt through SSM without a KMS grant.
  return {
    Sid: "BootstrapSecretsRead",
    Effect: "Allow",
    Action: ["ssm:GetParameter", "ssm:GetParameters", "ssm:GetParametersByPath"],
    Resource: audiences.map(
      (a) => `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter${parameterPrefix(spec.clusterName, a)}*`,
    ),
  };
}

// containerd pulls images from ECR (the user's own images); GetAuthorizationToken has no resource scope.
const imagePullStatement: Statement = {
  Sid: "ContainerImagesPull",
  Effect: "Allow",
  Action: [
    "ecr:GetAuthorizationToken",
    "ecr:BatchCheckLayerAvailability",
    "ecr:BatchGetImage",
    "ecr:GetDownloadUrlForLayer",
  ],
  Resource: "*",
};

// The bootstrap computes the kubelet's max pods in ENI mode from the instance type's ENI limits.
const instanceTypeLimitsStatement: Statement = {
  Sid: "InstanceTypeLimits",
  Effect: "Allow",
  Action: ["ec2:DescribeInstanceTypes"],
  Resource: "*",
};

/** The Cilium operator (on the control plane) allocating pod addresses from ENIs. */
function ciliumEniStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const clusterTag = { StringEquals: { "aws:ResourceTag/KubernetesCluster": spec.clusterName } };
  return [
    {
      Sid: "CiliumEniManage",
      Effect: "Allow",
      Action: ENI_ACTIONS.filter((a) => a !== "ec2:CreateTags" && !ENI_DESTRUCTIVE.includes(a)),
      Resource: "*",
    },
    {
      // Cilium tags the ENIs it creates with eni-tags, which carry KubernetesCluster.
      Sid: "CiliumEniReleaseOwn",
      Effect: "Allow",
      Action: ENI_DESTRUCTIVE,
      Resource: "*",
      Condition: clusterTag,
    },
    {
      // Tags only as part of creating an interface (the operator tags ENIs at creation).
      Sid: "CiliumEniTagOnCreate",
      Effect: "Allow",
      Action: ["ec2:CreateTags"],
      Resource: `arn:${at.partition}:ec2:*:${at.accountId}:network-interface/*`,
      Condition: { StringEquals: { "ec2:CreateAction": "CreateNetworkInterface" } },
    },
  ];
}

export function controlPlanePolicy(spec: ClusterSpec, at: AwsCoordinates): PolicyDocument {
  const statements = [secretsStatement(spec, at, ["control-plane", "node"]), imagePullStatement];
  // In ENI mode the operator's statements include ec2:DescribeInstanceTypes, which the bootstrap uses too.
  if (usesEni(spec)) statements.push(...ciliumEniStatements(spec, at));
  statements.push(...controlPlaneStateStatements(spec, at));
  return policyDocument(statements);
}

export function nodePolicy(spec: ClusterSpec, at: AwsCoordinates): PolicyDocument {
  const statements = [secretsStatement(spec, at, ["node"]), imagePullStatement];
  if (usesEni(spec)) statements.push(instanceTypeLimitsStatement);
  return policyDocument(statements);
}

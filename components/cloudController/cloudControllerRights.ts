/**
 * The AWS cloud controller manager (on the control plane): node initialisation and Services of type
 * LoadBalancer. Its prerequisites' control-plane policy, scoped as kOps scopes it: what it creates must carry
 * the cluster tag, and what it changes or deletes must already carry it. Left out of that policy: the volume
 * actions (the controller has no volume code; the EBS CSI driver brings its own), the route actions and
 * `ec2:ModifyInstanceAttribute` (it runs with `--configure-cloud-routes=false`), and
 * `iam:CreateServiceLinkedRole` (no instance role touches IAM; docs/iam.md says how to create the role once).
 */
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type { Condition, Statement } from "../iam/policyDocument";
import type { StatementSource } from "../iam/statementSource";

export const CLOUD_CONTROLLER_READS = [
  "autoscaling:DescribeAutoScalingGroups",
  "autoscaling:DescribeLaunchConfigurations",
  "autoscaling:DescribeTags",
  "ec2:DescribeAvailabilityZones",
  "ec2:DescribeInstances",
  "ec2:DescribeInstanceTopology",
  "ec2:DescribeRegions",
  "ec2:DescribeRouteTables",
  "ec2:DescribeSecurityGroups",
  "ec2:DescribeSubnets",
  "ec2:DescribeVpcs",
  "elasticloadbalancing:DescribeListeners",
  "elasticloadbalancing:DescribeLoadBalancerAttributes",
  "elasticloadbalancing:DescribeLoadBalancerPolicies",
  "elasticloadbalancing:DescribeLoadBalancers",
  "elasticloadbalancing:DescribeTargetGroups",
  // DescribeTargetGroupAttributes and ModifyTargetGroupAttributes (below): v1.35 keeps a target group's
  // attributes as a Service's annotations set them (pkg/providers/v1/aws_loadbalancer.go,
  // ensureTargetGroupAttributes); kOps's policy predates them.
  "elasticloadbalancing:DescribeTargetGroupAttributes",
  "elasticloadbalancing:DescribeTargetHealth",
  "kms:DescribeKey",
];

/** Created with the cluster tag in the request. */
export const CLOUD_CONTROLLER_CREATES = [
  "ec2:CreateSecurityGroup",
  "elasticloadbalancing:CreateListener",
  "elasticloadbalancing:CreateLoadBalancer",
  "elasticloadbalancing:CreateTargetGroup",
];

/** Changes to what already carries the cluster tag: its load balancers and security groups, and the nodes' group. */
export const CLOUD_CONTROLLER_CHANGES = [
  "ec2:AuthorizeSecurityGroupIngress",
  "ec2:DeleteSecurityGroup",
  "ec2:RevokeSecurityGroupIngress",
  "elasticloadbalancing:AddTags",
  "elasticloadbalancing:ApplySecurityGroupsToLoadBalancer",
  "elasticloadbalancing:AttachLoadBalancerToSubnets",
  "elasticloadbalancing:ConfigureHealthCheck",
  "elasticloadbalancing:CreateLoadBalancerListeners",
  "elasticloadbalancing:CreateLoadBalancerPolicy",
  "elasticloadbalancing:DeleteListener",
  "elasticloadbalancing:DeleteLoadBalancer",
  "elasticloadbalancing:DeleteLoadBalancerListeners",
  "elasticloadbalancing:DeleteTargetGroup",
  "elasticloadbalancing:DeregisterInstancesFromLoadBalancer",
  "elasticloadbalancing:DeregisterTargets",
  "elasticloadbalancing:DetachLoadBalancerFromSubnets",
  "elasticloadbalancing:ModifyListener",
  "elasticloadbalancing:ModifyLoadBalancerAttributes",
  "elasticloadbalancing:ModifyTargetGroup",
  "elasticloadbalancing:ModifyTargetGroupAttributes",
  "elasticloadbalancing:RegisterInstancesWithLoadBalancer",
  "elasticloadbalancing:RegisterTargets",
  "elasticloadbalancing:SetLoadBalancerPoliciesForBackendServer",
  "elasticloadbalancing:SetLoadBalancerPoliciesOfListener",
  "elasticloadbalancing:SetSecurityGroups",
];

export const cloudController: StatementSource = {
  sidPrefix: "CloudController",
  statements: (role, spec, at): Statement[] => {
    if (role !== "control-plane") return [];
    const requestTagged: Condition = { StringEquals: { [`aws:RequestTag/${CLUSTER_TAG}`]: spec.clusterName } };
    const tagged: Condition = { StringEquals: { [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName } };
    const ec2 = (type: string) => `arn:${at.partition}:ec2:*:${at.accountId}:${type}/*`;
    return [
      { Sid: "CloudControllerRead", Effect: "Allow", Action: CLOUD_CONTROLLER_READS, Resource: "*" },
      {
        Sid: "CloudControllerCreateTagged",
        Effect: "Allow",
        Action: CLOUD_CONTROLLER_CREATES,
        Resource: "*",
        Condition: requestTagged,
      },
      {
        // A security group is created in a VPC, which must be the cluster's.
        Sid: "CloudControllerGroupInClusterVpc",
        Effect: "Allow",
        Action: ["ec2:CreateSecurityGroup"],
        Resource: ec2("vpc"),
        Condition: tagged,
      },
      {
        // Tags a group it creates, or one of the cluster's, never moving a group into or out of the cluster.
        Sid: "CloudControllerTagGroups",
        Effect: "Allow",
        Action: ["ec2:CreateTags"],
        Resource: ec2("security-group"),
        Condition: {
          ...tagged,
          Null: { [`aws:RequestTag/${CLUSTER_TAG}`]: "true" },
        },
      },
      {
        Sid: "CloudControllerTagGroupOnCreate",
        Effect: "Allow",
        Action: ["ec2:CreateTags"],
        Resource: ec2("security-group"),
        Condition: {
          StringEquals: { ...requestTagged.StringEquals, "ec2:CreateAction": "CreateSecurityGroup" },
        },
      },
      {
        Sid: "CloudControllerChangeOwn",
        Effect: "Allow",
        Action: CLOUD_CONTROLLER_CHANGES,
        Resource: "*",
        Condition: tagged,
      },
    ];
  },
};

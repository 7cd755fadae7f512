/** The Cilium operator in ENI mode (it runs on the control plane): allocating pod addresses from ENIs. */
import type { Statement } from "../policyDocument";
import type { StatementSource } from "../statementSource";

/** The actions kOps's adding-a-feature guide (`addCiliumEniPermissions` as first written) grants the operator. */
export const KOPS_GUIDE_ENI_ACTIONS = [
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
export const ENI_ACTIONS: readonly string[] = [...KOPS_GUIDE_ENI_ACTIONS, ...CILIUM_DOCUMENTED_ENI_ACTIONS];

/** ENI actions that change or destroy interfaces, held back to the cluster's own ENIs where AWS can tell. */
const ENI_DESTRUCTIVE = ["ec2:DeleteNetworkInterface", "ec2:DetachNetworkInterface"];

export const ciliumEni: StatementSource = {
  sidPrefix: "CiliumEni",
  statements: (role, spec, at): Statement[] => {
    if (role !== "control-plane" || spec.networking.cilium.ipam !== "eni") return [];
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
        Condition: { StringEquals: { "aws:ResourceTag/KubernetesCluster": spec.clusterName } },
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
  },
};

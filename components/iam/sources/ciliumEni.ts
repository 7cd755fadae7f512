/** The Cilium operator in ENI mode (it runs on the control plane): allocating pod addresses from ENIs. */
import { parseSemver } from "../../../catalogs/ciliumVersions";
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

/** Every action the Cilium operator may use in ENI mode, on every shipped line. */
export const ENI_ACTIONS: readonly string[] = [...KOPS_GUIDE_ENI_ACTIONS, ...CILIUM_DOCUMENTED_ENI_ACTIONS];

/**
 * Actions a Cilium line's ENI docs ("Required Privileges") add to the ones before it, by the minor that
 * adds them. 1.20 reads AWS managed prefix lists (prefix lists in network policies, cilium/cilium#45806).
 */
export const ENI_ACTIONS_ADDED_IN: Readonly<Record<number, readonly string[]>> = {
  20: ["ec2:DescribeManagedPrefixLists", "ec2:GetManagedPrefixListEntries"],
};

/** The ENI actions the operator of a Cilium version (`vX.Y.Z`) uses. */
export function eniActions(ciliumVersion: string): string[] {
  const minor = parseSemver(ciliumVersion.replace(/^v/, ""))?.minor ?? 0;
  const added = Object.entries(ENI_ACTIONS_ADDED_IN).filter(([since]) => minor >= Number(since));
  return [...ENI_ACTIONS, ...added.flatMap(([, actions]) => actions)];
}

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
        Action: eniActions(spec.networking.cilium.version).filter(
          (a) => a !== "ec2:CreateTags" && !ENI_DESTRUCTIVE.includes(a),
        ),
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

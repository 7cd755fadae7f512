/**
 * The Cilium operator in ENI mode (it runs on the control plane): allocating pod addresses from ENIs, on
 * this cluster's interfaces, instances, subnets and security groups only. Every one of them carries the
 * cluster tag: the launch templates tag instances and their primary interfaces, ClusterNetwork tags
 * subnets and security groups, and the operator creates its ENIs with `eni-tags`, which hold it.
 */
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import { parseSemver } from "../../catalogs/ciliumVersions";
import type { Statement } from "../iam/policyDocument";
import type { AwsCoordinates, StatementSource } from "../iam/statementSource";
import { eniMode } from "../../config/eniMode";

/** The tag every resource of the cluster carries, and the only one the operator's rights key on. */

/**
 * Reads of the operator's ENI sync (Cilium's `pkg/aws/ec2`): describe actions take no resource or tag
 * condition in AWS, so they stay account-wide. Route tables, tags and instance types are what Cilium
 * 1.18/1.19's ENI docs add to kOps's list.
 */
export const ENI_READ_ACTIONS = [
  "ec2:DescribeSubnets",
  "ec2:DescribeNetworkInterfaces",
  "ec2:DescribeSecurityGroups",
  "ec2:DescribeVpcs",
  "ec2:DescribeRouteTables",
  "ec2:DescribeTags",
  "ec2:DescribeInstanceTypes",
] as const;

/**
 * What the operator does to an existing interface: attach it to its node, set delete-on-termination,
 * assign and release pod addresses, delete it once detached. kOps's guide also grants
 * `ec2:DetachNetworkInterface` and `ec2:DescribeVpcPeeringConnections`; no shipped Cilium line calls either.
 */
export const ENI_USE_ACTIONS = [
  "ec2:AttachNetworkInterface",
  "ec2:ModifyNetworkInterfaceAttribute",
  "ec2:AssignPrivateIpAddresses",
  "ec2:UnassignPrivateIpAddresses",
  "ec2:DeleteNetworkInterface",
] as const;

/** Creating an interface, and tagging it in the same request (tag-on-create needs `ec2:CreateTags`). */
export const ENI_CREATE_ACTIONS = ["ec2:CreateNetworkInterface", "ec2:CreateTags"] as const;

/** Every action the Cilium operator may use in ENI mode, on every shipped line. */
export const ENI_ACTIONS: readonly string[] = [...ENI_READ_ACTIONS, ...ENI_USE_ACTIONS, ...ENI_CREATE_ACTIONS];

/**
 * Reads a Cilium line's ENI docs ("Required Privileges") add to the ones before it, by the minor that
 * adds them. 1.20 reads AWS managed prefix lists (prefix lists in network policies, cilium/cilium#45806).
 */
export const ENI_READS_ADDED_IN: Readonly<Record<number, readonly string[]>> = {
  20: ["ec2:DescribeManagedPrefixLists", "ec2:GetManagedPrefixListEntries"],
};

/** The reads the operator of a Cilium version (`vX.Y.Z`) makes. */
function eniReads(ciliumVersion: string): string[] {
  const minor = parseSemver(ciliumVersion.replace(/^v/, ""))?.minor ?? 0;
  const added = Object.entries(ENI_READS_ADDED_IN).filter(([since]) => minor >= Number(since));
  return [...ENI_READ_ACTIONS, ...added.flatMap(([, actions]) => actions)];
}

/** The ENI actions the operator of a Cilium version (`vX.Y.Z`) uses. */
export function eniActions(ciliumVersion: string): string[] {
  return [...eniReads(ciliumVersion), ...ENI_USE_ACTIONS, ...ENI_CREATE_ACTIONS];
}

const ec2Arn = (at: AwsCoordinates, type: string) => `arn:${at.partition}:ec2:${at.region}:${at.accountId}:${type}/*`;

export const ciliumEni: StatementSource = {
  sidPrefix: "CiliumEni",
  statements: (role, spec, at): Statement[] => {
    if (role !== "control-plane" || !eniMode(spec.networking.cilium)) return [];
    const ofCluster = { StringEquals: { [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName } };
    const taggedForCluster = { [`aws:RequestTag/${CLUSTER_TAG}`]: spec.clusterName };
    return [
      {
        Sid: "CiliumEniRead",
        Effect: "Allow",
        Action: eniReads(spec.networking.cilium.version),
        Resource: "*",
      },
      {
        // The new interface itself: only when the request tags it for this cluster (eni-tags).
        Sid: "CiliumEniCreateTagged",
        Effect: "Allow",
        Action: ["ec2:CreateNetworkInterface"],
        Resource: ec2Arn(at, "network-interface"),
        Condition: { StringEquals: taggedForCluster },
      },
      {
        // ...and only in this cluster's subnets, with this cluster's security groups.
        Sid: "CiliumEniCreateInCluster",
        Effect: "Allow",
        Action: ["ec2:CreateNetworkInterface"],
        Resource: [ec2Arn(at, "subnet"), ec2Arn(at, "security-group")],
        Condition: ofCluster,
      },
      {
        // Tags only as part of creating an interface, and only the cluster's own.
        Sid: "CiliumEniTagOnCreate",
        Effect: "Allow",
        Action: ["ec2:CreateTags"],
        Resource: ec2Arn(at, "network-interface"),
        Condition: { StringEquals: { "ec2:CreateAction": "CreateNetworkInterface", ...taggedForCluster } },
      },
      {
        Sid: "CiliumEniUseOwn",
        Effect: "Allow",
        Action: [...ENI_USE_ACTIONS],
        Resource: ec2Arn(at, "network-interface"),
        Condition: ofCluster,
      },
      {
        // Attaching (and changing an attachment) authorizes the instance too: it must be this cluster's node.
        Sid: "CiliumEniOwnInstances",
        Effect: "Allow",
        Action: ["ec2:AttachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute"],
        Resource: ec2Arn(at, "instance"),
        Condition: ofCluster,
      },
    ];
  },
};

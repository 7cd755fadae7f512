/**
 * The EBS CSI driver's controller (on the control plane, `addons.ebsCsiDriver.enabled`): the driver's
 * documented policy (aws-ebs-csi-driver-example-iam-policy.json) for volumes, keyed on this cluster's tag
 * instead of the driver's generic ones, so the role can touch no other cluster's volumes. It creates volumes
 * with `KubernetesCluster` and `CSIVolumeName` (`--k8s-tag-cluster-id`); it changes only volumes with both,
 * so not even this cluster's root volumes. No snapshot statements: the program installs no snapshot CRDs
 * or controller, so the driver is never asked for one.
 */
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type { Statement } from "../iam/policyDocument";
import type { StatementSource } from "../iam/statementSource";

export const EBS_CSI_READS = [
  "ec2:DescribeAvailabilityZones",
  "ec2:DescribeInstances",
  "ec2:DescribeInstanceTypes",
  "ec2:DescribeSnapshots",
  "ec2:DescribeTags",
  "ec2:DescribeVolumes",
  "ec2:DescribeVolumesModifications",
  "ec2:DescribeVolumeStatus",
];

export const ebsCsiDriver: StatementSource = {
  sidPrefix: "EbsCsi",
  statements: (role, spec, at): Statement[] => {
    if (role !== "control-plane" || !spec.addons.ebsCsiDriver.enabled) return [];
    const arn = (type: string) => `arn:${at.partition}:ec2:*:${at.accountId}:${type}/*`;
    const cluster = { [`aws:ResourceTag/${CLUSTER_TAG}`]: spec.clusterName };
    return [
      { Sid: "EbsCsiRead", Effect: "Allow", Action: EBS_CSI_READS, Resource: "*" },
      {
        Sid: "EbsCsiCreateTagged",
        Effect: "Allow",
        Action: ["ec2:CreateVolume"],
        Resource: arn("volume"),
        Condition: { StringEquals: { [`aws:RequestTag/${CLUSTER_TAG}`]: spec.clusterName } },
      },
      {
        Sid: "EbsCsiTagOnCreate",
        Effect: "Allow",
        Action: ["ec2:CreateTags"],
        Resource: arn("volume"),
        // And the create's cluster tag, which EbsCsiCreateTagged requires of the create itself: the statement
        // then names this cluster on its own, as every other write here does.
        Condition: {
          StringEquals: { "ec2:CreateAction": "CreateVolume", [`aws:RequestTag/${CLUSTER_TAG}`]: spec.clusterName },
        },
      },
      {
        Sid: "EbsCsiChangeOwnVolumes",
        Effect: "Allow",
        Action: ["ec2:AttachVolume", "ec2:DeleteVolume", "ec2:DetachVolume", "ec2:ModifyVolume"],
        Resource: arn("volume"),
        Condition: { StringEquals: cluster, StringLike: { "aws:ResourceTag/CSIVolumeName": "*" } },
      },
      {
        Sid: "EbsCsiOnClusterInstances",
        Effect: "Allow",
        Action: ["ec2:AttachVolume", "ec2:DetachVolume"],
        Resource: arn("instance"),
        Condition: { StringEquals: cluster },
      },
    ];
  },
};

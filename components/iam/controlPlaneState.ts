/**
 * IAM statements of the control plane's state (etcd membership on termination, etcd volumes, backups, the
 * init record): a statement source of its own, added to the control-plane role only.
 */
import type { ClusterSpec } from "../../spec/types";
import { INIT_RECORD_PARAMETER } from "../nodes/controlPlaneState";
import { parameterPrefix } from "../secrets/paths";
import type { AwsCoordinates } from "./policies";
import type { Statement } from "./policyDocument";

const clusterTag = (spec: ClusterSpec) => ({
  StringEquals: { "aws:ResourceTag/KubernetesCluster": spec.clusterName },
});

export function controlPlaneStateStatements(spec: ClusterSpec, at: AwsCoordinates): Statement[] {
  const ssm = `arn:${at.partition}:ssm:${at.region}:${at.accountId}:parameter`;
  return [
    {
      // The node that creates the cluster creates the init record (without overwrite: the lock); the
      // secrets statement already lets control-plane nodes read it.
      Sid: "InitRecordCreate",
      Effect: "Allow",
      Action: ["ssm:PutParameter"],
      Resource: `${ssm}${parameterPrefix(spec.clusterName, "control-plane")}${INIT_RECORD_PARAMETER}-*`,
    },
    {
      // A control-plane node finds its member's etcd volume by tags (describe calls take no resource scope).
      Sid: "EtcdVolumeDescribe",
      Effect: "Allow",
      Action: ["ec2:DescribeVolumes"],
      Resource: "*",
    },
    {
      // ... and attaches it: both the volume and the instance must carry the cluster's tag.
      Sid: "EtcdVolumeAttach",
      Effect: "Allow",
      Action: ["ec2:AttachVolume"],
      Resource: [
        `arn:${at.partition}:ec2:*:${at.accountId}:volume/*`,
        `arn:${at.partition}:ec2:*:${at.accountId}:instance/*`,
      ],
      Condition: clusterTag(spec),
    },
    {
      // The etcd-lifecycle service finds its group and whether the group is scaled down (no resource scope).
      Sid: "EtcdLifecycleDescribe",
      Effect: "Allow",
      Action: ["autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances"],
      Resource: "*",
    },
    {
      Sid: "EtcdLifecycleComplete",
      Effect: "Allow",
      Action: ["autoscaling:CompleteLifecycleAction"],
      Resource: "*",
      Condition: clusterTag(spec),
    },
  ];
}

/**
 * The default image: the latest Ubuntu 24.04 LTS (Noble) server AMI from Canonical for the architecture,
 * resolved once per group and kept (`pinnedImage`).
 */
import { getAmiOutput } from "@pulumi/aws/ec2/getAmi";
import { Parameter as SsmParameter } from "@pulumi/aws/ssm/parameter";
import * as pulumi from "@pulumi/pulumi";
import { architectureOf } from "../../catalogs/instanceTypes";
import type { ClusterSpec } from "../../config/types";
import { clusterTags } from "../tags";
import type { InstanceGroup } from "./instanceGroups";

export const CANONICAL_OWNER = "099720109477";

/** The AMI filters for an instance type; pure so tests and docs can show them. */
export function ubuntuAmiFilters(instanceType: string): { name: string; values: string[] }[] {
  const arch = architectureOf(instanceType) === "arm64" ? "arm64" : "amd64";
  return [
    { name: "name", values: [`ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-${arch}-server-*`] },
    { name: "virtualization-type", values: ["hvm"] },
    { name: "root-device-type", values: ["ebs"] },
  ];
}

/** The group's `imageId` when set, else a lookup of the newest Canonical image. */
export function imageFor(instanceType: string, imageId: string, opts: pulumi.InvokeOptions): pulumi.Output<string> {
  if (imageId) return pulumi.output(imageId);
  return getAmiOutput({ owners: [CANONICAL_OWNER], mostRecent: true, filters: ubuntuAmiFilters(instanceType) }, opts)
    .id;
}

/**
 * A group's image, pinned: `imageId` when set; otherwise the newest Canonical image at the time the group
 * (or its architecture) first appears, kept in an SSM parameter whose value Pulumi never updates
 * (`ignoreChanges`). A new Canonical release then changes nothing; `pulumi up --replace` on the parameter
 * (or setting `imageId`) moves the group to another image, and the plan shows the template's `imageId` change.
 */
export function pinnedImage(
  name: string,
  spec: Pick<ClusterSpec, "clusterName" | "cloudLabels">,
  group: Pick<InstanceGroup, "name" | "instanceType" | "imageId">,
  parent: pulumi.Resource,
): pulumi.Output<string> {
  if (group.imageId) return pulumi.output(group.imageId);
  const arch = architectureOf(group.instanceType) === "arm64" ? "arm64" : "amd64";
  const parameterName = `/cilium-cluster/${spec.clusterName}/images/${group.name}/${arch}`;
  const pin = new SsmParameter(
    `${name}-image`,
    {
      name: parameterName,
      type: "String",
      insecureValue: imageFor(group.instanceType, "", { parent }),
      description: `Image of instance group ${group.name} of cluster ${spec.clusterName}, resolved once`,
      tags: clusterTags(spec, parameterName),
    },
    // Replaced on request (`pulumi up --replace`, docs/nodes.md), which the provider's diff does not decide, so
    // the provider does not ask to delete it first; a second parameter of the name would be refused.
    { parent, ignoreChanges: ["insecureValue"], deleteBeforeReplace: true },
  );
  return pin.insecureValue;
}

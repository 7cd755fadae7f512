/** The default image: the latest Ubuntu 24.04 LTS (Noble) server AMI from Canonical for the architecture. */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { architectureOf } from "../../spec/instanceTypes";

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
  return aws.ec2.getAmiOutput(
    { owners: [CANONICAL_OWNER], mostRecent: true, filters: ubuntuAmiFilters(instanceType) },
    opts,
  ).id;
}

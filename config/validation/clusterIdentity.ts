/** Rules on the cluster's identity: name, region, Kubernetes version (kubernetesVersion.ts), labels and IAM settings. */
import { REGIONS } from "../../catalogs/awsEnums";
import { CLUSTER_TAG, INSTANCE_GROUP_TAG } from "../../catalogs/kopsTagKeys";
import type { ClusterSpec } from "../types";
import { closestValues } from "./closestKey";
import { PROGRAM_TAGS_PER_RESOURCE, TAGS_PER_RESOURCE } from "../quotas";
import { validateKubernetesVersion } from "./kubernetesVersion";
import { principalErrors } from "./principals";
import { child, FieldError, forbidden, invalid, mustRemove, required, tooMany, withSuggestion } from "./fieldErrors";

const DNS_NAME = /^(?=.{1,63}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;
const POLICY_ARN = /^arn:aws(-cn|-us-gov|-iso[a-z-]*)?:iam::(\d{12}|aws):policy\/[\w+=,.@/-]+$/;
const IAM_PATH = /^\/([\x21-\x2e\x30-\x7e]+\/)*$/;
/** What EC2 and most services accept in tag keys and values. */
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/**
 * Tags the program sets itself, or that Cilium selects by: a cloud label must not override them. Cloud
 * labels go on every subnet, so a `cilium-cluster/` key could put the public subnets in ENI mode's subnet
 * filter (`cilium-cluster/node-subnet`), and an `io.cilium/` key could fake Cilium's ENI ownership tags.
 */
export function isReservedTag(key: string): boolean {
  return (
    key === CLUSTER_TAG ||
    key === "Name" ||
    key === INSTANCE_GROUP_TAG ||
    key.startsWith("kubernetes.io/cluster/") ||
    key.startsWith("kubernetes.io/role/") ||
    // A role tag on a worker would make it an etcd peer to the control plane (bootstrap/etcd.sh finds them by it).
    key.startsWith("k8s.io/role/") ||
    key.startsWith("cilium-cluster/") ||
    key.startsWith("io.cilium/")
  );
}

export function validateCluster(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  if (!spec.region) errors.push(required("aws:region", "the AWS region of the stack"));
  else if (!REGION.test(spec.region))
    errors.push(invalid("aws:region", spec.region, "must be an AWS region such as us-east-1"));
  else if (!REGIONS.has(spec.region)) {
    const near = closestValues(spec.region, REGIONS);
    const detail = `not an AWS region; closest: ${near.map((r) => JSON.stringify(r)).join(", ")}`;
    errors.push(withSuggestion(invalid("aws:region", spec.region, detail), near[0]));
  }

  if (spec.clusterName && !DNS_NAME.test(spec.clusterName)) {
    errors.push(
      invalid(
        "clusterName",
        spec.clusterName,
        "must be a lowercase DNS name of at most 63 characters, such as dev.k8s.local",
      ),
    );
  }

  errors.push(...validateKubernetesVersion(spec.kubernetesVersion));

  for (const [key, value] of Object.entries(spec.cloudLabels)) {
    const path = child("cloudLabels", key);
    if (isReservedTag(key))
      errors.push(mustRemove(forbidden(path, "the program or Cilium sets or selects by this tag itself")));
    else if (key.length === 0 || key.length > 128 || key.toLowerCase().startsWith("aws:")) {
      errors.push(mustRemove(invalid(path, key, "tag keys have 1 to 128 characters and must not start with 'aws:'")));
    } else if (!TAG_TEXT.test(key))
      errors.push(mustRemove(invalid(path, key, "tag keys may hold letters, digits, spaces and _ . : / = + - @")));
    if (value.length > 256) errors.push(invalid(path, value, "tag values have at most 256 characters"));
    else if (!TAG_TEXT.test(value))
      errors.push(invalid(path, value, "tag values may hold letters, digits, spaces and _ . : / = + - @"));
  }

  const labels = Object.keys(spec.cloudLabels);
  const room = TAGS_PER_RESOURCE - PROGRAM_TAGS_PER_RESOURCE;
  if (labels.length > room) {
    errors.push(
      tooMany(
        "cloudLabels",
        labels.length,
        room,
        `AWS allows ${TAGS_PER_RESOURCE} tags per resource and the program puts up to ${PROGRAM_TAGS_PER_RESOURCE} of its own on one`,
        labels.slice(room).map((key) => child("cloudLabels", key)),
      ),
    );
  }

  if (spec.iam.permissionsBoundary !== "" && !POLICY_ARN.test(spec.iam.permissionsBoundary)) {
    errors.push(invalid("iam.permissionsBoundary", spec.iam.permissionsBoundary, "must be an IAM policy ARN"));
  }
  errors.push(...principalErrors("api.admins", spec.api.admins));
  if (!IAM_PATH.test(spec.iam.path) || spec.iam.path.length > 512) {
    errors.push(invalid("iam.path", spec.iam.path, "must be '/' or start and end with '/', at most 512 characters"));
  }
  return errors;
}

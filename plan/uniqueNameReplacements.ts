/**
 * Replacements `pulumi up` cannot carry out. Pulumi creates a replacement before it deletes the original,
 * unless the resource is `deleteBeforeReplace`; a resource whose physical name AWS holds unique, replaced
 * while keeping that name, is then refused by AWS, and the update stops half done. Pure: a diff in, errors out.
 */
import { inputsOf } from "./clusterFacts";
import type { PlanDiff } from "./diff";
import type { Risk } from "./risks";

interface UniqueName {
  /** The input that holds the physical name. */
  name: string;
  /** An input that scopes the name (a security group's name is unique within its VPC only). */
  within?: string;
  /** Where AWS holds the name unique. */
  where: string;
  /** The error AWS answers a second resource of the name with (its API reference). */
  error: string;
}

// IAM API reference, CreateRole / CreatePolicy / CreateInstanceProfile: EntityAlreadyExists. IAM names are
// unique in the account whatever the path ("IAM identifiers", Friendly names and paths).
const IAM: UniqueName = { name: "name", where: "the account, whatever the path", error: "EntityAlreadyExists" };

/**
 * The types the program declares with a fixed physical name and with inputs besides the name that force
 * their replacement (plan/replaceKeys.ts), so that a replacement can keep the name.
 */
export const UNIQUE_NAMES: Record<string, UniqueName> = {
  "aws:iam/role:Role": IAM,
  "aws:iam/policy:Policy": IAM,
  "aws:iam/instanceProfile:InstanceProfile": IAM,
  // Elastic Load Balancing API reference, CreateLoadBalancer / CreateTargetGroup: a name already used with
  // other settings.
  "aws:lb/loadBalancer:LoadBalancer": { name: "name", where: "the region", error: "DuplicateLoadBalancerName" },
  "aws:lb/targetGroup:TargetGroup": { name: "name", where: "the region", error: "DuplicateTargetGroupName" },
  // EC2 API reference, CreateSecurityGroup: a group name is unique within its VPC.
  "aws:ec2/securityGroup:SecurityGroup": {
    name: "name",
    within: "vpcId",
    where: "its VPC",
    error: "InvalidGroup.Duplicate",
  },
};

/** One error per replacement that keeps a unique name and is not deleted first. */
export function uniqueNameReplacements(diff: PlanDiff): Risk[] {
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  return diff.changes.flatMap((change) => {
    const unique = UNIQUE_NAMES[change.type];
    const now = after.get(change.urn);
    if (change.op !== "replace" || !unique || !now || now.deleteBeforeReplace) return [];
    const name = inputsOf(now)[unique.name];
    const changed = new Set(change.changes.map((p) => p.path.split(/[.[]/)[0]));
    // A scope that changes (a new VPC, the cascade of the old one's replacement) frees the name in the new one.
    const kept = !changed.has(unique.name) && (unique.within === undefined || !changed.has(unique.within));
    if (typeof name !== "string" || !kept) return [];
    const by = [...new Set(change.changes.filter((p) => p.replaces).map((p) => p.path.split(/[.[]/)[0]))];
    return [
      {
        level: "error" as const,
        text:
          `pulumi up would fail: ${change.type.split(":")[2]} ${change.name} is replaced (${by.join(", ")}) but ` +
          `keeps its name ${name}, which AWS holds unique in ${unique.where}: Pulumi creates ` +
          `the replacement before it deletes the original, and AWS refuses it (${unique.error}).`,
      },
    ];
  });
}

/**
 * Replacements Pulumi carries out by deleting the original first. The program's `deleteBeforeReplace` decides
 * where it sets one; otherwise the provider's diff does. The AWS provider names every resource with a `name`
 * input itself unless the program names it (pulumi-aws provider/autonaming.go), and asks for the original to go
 * first when the program did (pulumi-terraform-bridge, `nameRequiresDeleteBeforeReplace`): AWS holds such names
 * unique, so a replacement beside the original would be refused. The plan's mocks never run the provider's
 * diff, so the plan applies that rule itself.
 */
import { inputsOf } from "./clusterFacts";
import type { PlanDiff } from "./diff";
import type { Risk } from "./risks";
import type { PlannedResource } from "./run";

/** The types the program declares whose Pulumi `name` is the provider's `name` input, which it auto-names. */
export const AUTONAMED_BY_PROVIDER = new Set([
  "aws:iam/role:Role",
  "aws:iam/policy:Policy",
  "aws:iam/instanceProfile:InstanceProfile",
  "aws:lb/loadBalancer:LoadBalancer",
  "aws:lb/targetGroup:TargetGroup",
  "aws:ec2/securityGroup:SecurityGroup",
  "aws:ec2/launchTemplate:LaunchTemplate",
  "aws:autoscaling/group:Group",
  "aws:autoscaling/lifecycleHook:LifecycleHook",
  "aws:ssm/parameter:Parameter",
  "aws:ssm/document:Document",
  "aws:kms/alias:Alias",
  "aws:sqs/queue:Queue",
  "aws:cloudwatch/eventRule:EventRule",
]);

/** Whether the provider has a replacement of the resource delete it first: the program names it. */
const namedByProgram = (r: PlannedResource): boolean =>
  AUTONAMED_BY_PROVIDER.has(r.type) && typeof inputsOf(r).name === "string";

/** Whether a replacement of the resource deletes it before creating the new one. */
export const deletesFirst = (r: PlannedResource): boolean => r.deleteBeforeReplace ?? namedByProgram(r);

const LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer";

/**
 * The replacements the provider has delete first, but for the API load balancers, whose risk says what their
 * absence takes down (risks.ts): each resource is missing until its replacement exists.
 */
export function deleteFirstReplacements(diff: PlanDiff): Risk[] {
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  const first = diff.changes.filter((c) => {
    const r = after.get(c.urn);
    if (c.op !== "replace" || c.type === LOAD_BALANCER || r === undefined) return false;
    return r.deleteBeforeReplace === undefined && namedByProgram(r);
  });
  if (first.length === 0) return [];
  const listed = first.map((c) => `${c.name} (${c.type.split(":")[2]})`).join(", ");
  return [
    {
      level: "warning",
      text:
        `Deleted before their replacements are created: ${listed}. Each keeps a name AWS holds unique, so Pulumi ` +
        "deletes the original first: it is missing until its replacement exists.",
    },
  ];
}

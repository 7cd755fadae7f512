/**
 * Replacements Pulumi carries out by deleting the original first. The program's `deleteBeforeReplace` decides
 * where it sets one. Otherwise the provider's diff does, for the replacements it decides (not those
 * `pulumi up --replace` asks for: the program sets the option where the docs say to use it). The AWS provider
 * names every resource with a `name` input itself unless the program names it (pulumi-aws
 * provider/autonaming.go), and asks for the original to go first when the program did
 * (pulumi-terraform-bridge, `nameRequiresDeleteBeforeReplace`): AWS holds such names unique, so a replacement
 * beside the original would be refused. The plan's mocks never run the provider's diff, so the plan applies
 * that rule itself.
 */
import { inputsOf, LOAD_BALANCER } from "./clusterFacts";
import type { PlanDiff } from "./diff";
import type { Risk } from "./risks";
import type { PlannedResource } from "./run";

/**
 * The types the program declares with the input the provider auto-names unless the program sets it: `name`,
 * as pulumi-aws does for every resource with a Terraform `name` input (provider/autonaming.go), or where its
 * resources.go says otherwise (a metric alarm's `alarm_name`, which Pulumi calls `name`; a bucket's `bucket`).
 */
export const AUTONAMED_BY_PROVIDER: Readonly<Record<string, string>> = {
  "aws:iam/role:Role": "name",
  "aws:iam/policy:Policy": "name",
  "aws:iam/instanceProfile:InstanceProfile": "name",
  "aws:lb/loadBalancer:LoadBalancer": "name",
  "aws:lb/targetGroup:TargetGroup": "name",
  "aws:ec2/securityGroup:SecurityGroup": "name",
  "aws:ec2/launchTemplate:LaunchTemplate": "name",
  "aws:autoscaling/group:Group": "name",
  "aws:autoscaling/lifecycleHook:LifecycleHook": "name",
  "aws:ssm/parameter:Parameter": "name",
  "aws:ssm/document:Document": "name",
  "aws:kms/alias:Alias": "name",
  "aws:sqs/queue:Queue": "name",
  "aws:cloudwatch/eventRule:EventRule": "name",
  "aws:cloudwatch/metricAlarm:MetricAlarm": "name",
  "aws:route53/zone:Zone": "name",
  "aws:s3/bucket:Bucket": "bucket",
};

/** Whether the program sets the name the provider would otherwise choose. */
const namedByProgram = (r: PlannedResource): boolean => {
  const name = AUTONAMED_BY_PROVIDER[r.type];
  return name !== undefined && typeof inputsOf(r)[name] === "string";
};

/** Whether a replacement of the resource deletes it before creating the new one. */
export const deletesFirst = (r: PlannedResource): boolean => r.deleteBeforeReplace ?? namedByProgram(r);

/**
 * The replacements of resources the program names that delete first, but for the API load balancers, whose
 * risk says what their absence takes down (risks.ts): each is missing until its replacement exists.
 */
export function deleteFirstReplacements(diff: PlanDiff): Risk[] {
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  const first = diff.changes.filter((c) => {
    const r = after.get(c.urn);
    if (c.op !== "replace" || c.type === LOAD_BALANCER || r === undefined) return false;
    return deletesFirst(r) && namedByProgram(r);
  });
  if (first.length === 0) return [];
  const listed = first.map((c) => `${c.name} (${c.type.split(":")[2]})`).join(", ");
  return [
    {
      level: "warning",
      text:
        `Deleted before their replacements are created: ${listed}. Each has a name the program sets, which AWS ` +
        "holds unique, so Pulumi deletes the original first: it is missing until its replacement exists.",
    },
  ];
}

/**
 * List inputs the AWS provider keeps as sets (`TypeSet` in its schema): their order means nothing, so a
 * real preview shows no change when only the order moves (reordering `network.availabilityZones` reorders
 * the subnet IDs a load balancer or an Auto Scaling group gets). The offline diff compares them sorted.
 */
import { byCodePoint } from "../../components/codePointOrder";
export const SET_PROPERTIES: Record<string, readonly string[]> = {
  "aws:lb/loadBalancer:LoadBalancer": ["subnets", "securityGroups"],
  "aws:autoscaling/group:Group": ["vpcZoneIdentifiers", "targetGroupArns"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["vpcSecurityGroupIds"],
};

/** A resource's inputs with its set-typed lists sorted. */
export function withSortedSets(type: string, inputs: unknown): unknown {
  const keys = SET_PROPERTIES[type];
  if (!keys || !inputs || typeof inputs !== "object") return inputs;
  const copy = { ...(inputs as Record<string, unknown>) };
  for (const key of keys) {
    const value = copy[key];
    if (Array.isArray(value)) copy[key] = [...value].sort((a, b) => byCodePoint(JSON.stringify(a), JSON.stringify(b)));
  }
  return copy;
}

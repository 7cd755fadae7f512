/**
 * The cluster's Auto Scaling groups, every group tagged `KubernetesCluster=<clusterName>`
 * (DescribeAutoScalingGroups, page by page), called with the stack's AWS config as `pulumi up`'s own calls
 * are (components/stackAws.ts). AWS is optional to the check: no credentials, a refusal or a config the
 * program does not honour is a reason the groups were not listed, never an error of the check.
 */
import { AutoScalingClient, AutoScalingGroup, paginateDescribeAutoScalingGroups } from "@aws-sdk/client-auto-scaling";
import { stackAws } from "../../components/stackAws";
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type { AwsGroups } from "./clusterState";
import { within } from "./within";

/** `config`: the stack's flat config (`aws:region`, `aws:profile`, `aws:assumeRoles`, ...). */
export async function readAutoScaling(clusterName: string, config: Record<string, string>): Promise<AwsGroups> {
  let aws;
  try {
    aws = stackAws(config);
  } catch (error) {
    return { listed: false, reason: (error as Error).message };
  }
  const client = new AutoScalingClient({ region: aws.region, profile: aws.profile, credentials: aws.credentials });
  try {
    const groups: AutoScalingGroup[] = [];
    const pages = paginateDescribeAutoScalingGroups(
      { client },
      { Filters: [{ Name: `tag:${CLUSTER_TAG}`, Values: [clusterName] }] },
    );
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      const page = await within("autoscaling:DescribeAutoScalingGroups", iterator.next());
      if (page.done) break;
      groups.push(...(page.value.AutoScalingGroups ?? []));
    }
    return { listed: true, groups };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (error instanceof Error && error.name === "CredentialsProviderError")
      return {
        listed: false,
        reason: `no AWS credentials with the stack's AWS config (${aws.description}): ${message}`,
      };
    return {
      listed: false,
      reason: `autoscaling:DescribeAutoScalingGroups failed with the stack's AWS config (${aws.description}): ${message}`,
    };
  } finally {
    client.destroy();
  }
}

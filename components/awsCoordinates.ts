/** The account, partition and region the stack deploys to, looked up once for policy ARNs. */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { AwsCoordinates } from "./iam/statementSource";

export function lookupCoordinates(region: string): pulumi.Output<AwsCoordinates & { dnsSuffix: string }> {
  return pulumi.all([aws.getCallerIdentityOutput(), aws.getPartitionOutput()]).apply(([identity, partition]) => ({
    accountId: identity.accountId,
    partition: partition.partition,
    dnsSuffix: partition.dnsSuffix,
    region,
  }));
}

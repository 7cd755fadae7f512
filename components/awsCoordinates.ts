/** The account, partition and region the stack deploys to, looked up once for policy ARNs. */
import { getCallerIdentityOutput } from "@pulumi/aws/getCallerIdentity";
import { getPartitionOutput } from "@pulumi/aws/getPartition";
import * as pulumi from "@pulumi/pulumi";
import type { AwsCoordinates } from "./iam/statementSource";

export function lookupCoordinates(region: string): pulumi.Output<AwsCoordinates & { dnsSuffix: string }> {
  return pulumi.all([getCallerIdentityOutput(), getPartitionOutput()]).apply(([identity, partition]) => ({
    accountId: identity.accountId,
    partition: partition.partition,
    dnsSuffix: partition.dnsSuffix,
    region,
  }));
}

/**
 * The restore's AWS calls (restoreProcedure.ts's RestoreAws) with the AWS SDK, as the person who runs it: the
 * default credential chain, or a profile. Reading the snapshot's head takes `s3:GetObject`, which the bucket
 * policy leaves to the restore principals (`controlPlane.backupRestorePrincipals`): run it as one.
 */
import {
  AutoScalingClient,
  AutoScalingGroup,
  paginateDescribeAutoScalingGroups,
  TerminateInstanceInAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand,
} from "@aws-sdk/client-auto-scaling";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { GetParameterCommand, PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { ControlPlaneGroup, RestoreAws, RestoreError } from "./restoreProcedure";

export function controlPlaneAws(region: string, profile?: string): RestoreAws {
  const config = { region, profile };
  const autoScaling = new AutoScalingClient(config);
  const s3 = new S3Client(config);
  const ssm = new SSMClient(config);
  return {
    async snapshot(bucket, key) {
      try {
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { bytes: head.ContentLength ?? 0, modified: head.LastModified };
      } catch (error) {
        if ((error as Error).name === "NotFound") return undefined;
        // Without s3:ListBucket, S3 answers a missing key with 403 too.
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 403)
          throw new RestoreError(
            `s3://${bucket}/${key} does not exist, or the caller may not read it: only the restore principals ` +
              "(controlPlane.backupRestorePrincipals) may read a snapshot; run as one (--profile), with " +
              "s3:ListBucket on the bucket to tell a missing key from a refusal",
          );
        throw error;
      }
    },
    async controlPlaneGroups(clusterName) {
      const groups: AutoScalingGroup[] = [];
      const filters = [
        { Name: `tag:${CLUSTER_TAG}`, Values: [clusterName] },
        { Name: `tag:${ROLE_TAGS["control-plane"]}`, Values: ["1"] },
      ];
      for await (const page of paginateDescribeAutoScalingGroups({ client: autoScaling }, { Filters: filters }))
        groups.push(...(page.AutoScalingGroups ?? []));
      return groups.map((g): ControlPlaneGroup => ({
        name: g.AutoScalingGroupName!,
        minSize: g.MinSize ?? 0,
        desiredCapacity: g.DesiredCapacity ?? 0,
        // Each instance the group holds, whatever its state (a terminating one waits in its hook).
        instances: Object.fromEntries((g.Instances ?? []).map((i) => [i.InstanceId!, i.LifecycleState ?? ""])),
      }));
    },
    async setSizes(group, sizes) {
      await autoScaling.send(
        new UpdateAutoScalingGroupCommand({
          AutoScalingGroupName: group,
          MinSize: sizes.minSize,
          DesiredCapacity: sizes.desiredCapacity,
        }),
      );
    },
    async terminate(instanceId) {
      await autoScaling.send(
        new TerminateInstanceInAutoScalingGroupCommand({
          InstanceId: instanceId,
          ShouldDecrementDesiredCapacity: true,
        }),
      );
    },
    async request(name) {
      try {
        return (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;
      } catch (error) {
        if ((error as Error).name === "ParameterNotFound") return undefined;
        throw error;
      }
    },
    async putRequest(name, key) {
      await ssm.send(new PutParameterCommand({ Name: name, Value: key, Type: "String", Overwrite: true }));
    },
  };
}

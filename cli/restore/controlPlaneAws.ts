/**
 * The restore's AWS calls (restoreProcedure.ts's RestoreAws) with the AWS SDK, as the person who runs it: the
 * default credential chain, or a profile. Reading the snapshot's head takes `s3:GetObject`, which the bucket
 * policy leaves to the restore principals (`controlPlane.backupRestorePrincipals`): run it as one.
 */
import {
  AutoScalingClient,
  AutoScalingGroup,
  DescribeAutoScalingInstancesCommand,
  paginateDescribeAutoScalingGroups,
  TerminateInstanceInAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand,
} from "@aws-sdk/client-auto-scaling";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
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
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 403)
          throw new RestoreError(
            `cannot read s3://${bucket}/${key}: only the restore principals (controlPlane.backupRestorePrincipals) ` +
              "may read a snapshot; run as one (--profile)",
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
      const ids = groups.flatMap((g) => (g.Instances ?? []).map((i) => i.InstanceId!));
      // The lifecycle state as Auto Scaling holds the instance (a terminating one waits in its hook).
      const states = new Map<string, string>();
      for (let i = 0; i < ids.length; i += 50) {
        const { AutoScalingInstances } = await autoScaling.send(
          new DescribeAutoScalingInstancesCommand({ InstanceIds: ids.slice(i, i + 50) }),
        );
        for (const instance of AutoScalingInstances ?? [])
          states.set(instance.InstanceId!, instance.LifecycleState ?? "");
      }
      return groups.map((g): ControlPlaneGroup => ({
        name: g.AutoScalingGroupName!,
        minSize: g.MinSize ?? 0,
        desiredCapacity: g.DesiredCapacity ?? 0,
        instances: Object.fromEntries(
          (g.Instances ?? [])
            .filter((i) => states.has(i.InstanceId!))
            .map((i) => [i.InstanceId!, states.get(i.InstanceId!)!]),
        ),
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
    async putRequest(name, key) {
      await ssm.send(new PutParameterCommand({ Name: name, Value: key, Type: "String", Overwrite: true }));
    },
  };
}

/**
 * The etcd backup bucket: versioned, encrypted (SSE-KMS under the cluster's own key), all public access
 * blocked, objects owned by the bucket, snapshots expiring after `controlPlane.backupRetentionDays`.
 * Control-plane nodes upload to it (the etcd-backup timer); only their role may write (IAM statements in
 * components/controlPlane/controlPlaneStateAccess.ts), and the bucket policy denies every other writer, every
 * reader but the control plane and the restore principals, every deletion and every request without TLS. `pulumi destroy` leaves the bucket and its settings in place (retainOnDelete):
 * backups outlive the cluster.
 */
import { Bucket } from "@pulumi/aws/s3/bucket";
import { BucketLifecycleConfiguration } from "@pulumi/aws/s3/bucketLifecycleConfiguration";
import { BucketOwnershipControls } from "@pulumi/aws/s3/bucketOwnershipControls";
import { BucketPolicy } from "@pulumi/aws/s3/bucketPolicy";
import { BucketPublicAccessBlock } from "@pulumi/aws/s3/bucketPublicAccessBlock";
import { BucketServerSideEncryptionConfiguration } from "@pulumi/aws/s3/bucketServerSideEncryptionConfiguration";
import { BucketVersioning } from "@pulumi/aws/s3/bucketVersioning";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { clusterTags } from "../tags";
import { backupBucketName, backupBucketPolicy, backupLifecycleRules } from "./backupBucket";

export function declareBackupBucket(
  name: string,
  spec: ClusterSpec,
  coordinates: pulumi.Output<{ accountId: string; region: string }>,
  writerRoleArn: pulumi.Output<string>,
  keyArn: pulumi.Output<string>,
  parent: pulumi.Resource,
): pulumi.Output<string> {
  const opts = { parent, retainOnDelete: true };
  const bucketName = coordinates.apply((c) => backupBucketName(spec.clusterName, c.accountId, c.region));
  const bucket = new Bucket(
    `${name}-backups`,
    { bucket: bucketName, tags: bucketName.apply((n) => clusterTags(spec, n)) },
    opts,
  );
  new BucketPublicAccessBlock(
    `${name}-backups`,
    {
      bucket: bucket.id,
      blockPublicAcls: true,
      blockPublicPolicy: true,
      ignorePublicAcls: true,
      restrictPublicBuckets: true,
    },
    opts,
  );
  new BucketOwnershipControls(
    `${name}-backups`,
    { bucket: bucket.id, rule: { objectOwnership: "BucketOwnerEnforced" } },
    opts,
  );
  new BucketVersioning(`${name}-backups`, { bucket: bucket.id, versioningConfiguration: { status: "Enabled" } }, opts);
  new BucketServerSideEncryptionConfiguration(
    `${name}-backups`,
    {
      bucket: bucket.id,
      rules: [
        {
          applyServerSideEncryptionByDefault: { sseAlgorithm: "aws:kms", kmsMasterKeyId: keyArn },
          bucketKeyEnabled: true,
        },
      ],
    },
    opts,
  );
  new BucketLifecycleConfiguration(
    `${name}-backups`,
    { bucket: bucket.id, rules: backupLifecycleRules(spec.controlPlane.backupRetentionDays) },
    opts,
  );
  new BucketPolicy(
    `${name}-backups`,
    {
      bucket: bucket.id,
      policy: pulumi.all([bucket.arn, writerRoleArn, keyArn]).apply(([b, writerRoleArn, keyArn]) =>
        JSON.stringify(
          backupBucketPolicy(b, {
            writerRoleArn,
            keyArn,
            restorePrincipals: spec.controlPlane.backupRestorePrincipals,
          }),
        ),
      ),
    },
    opts,
  );
  return bucket.bucket;
}

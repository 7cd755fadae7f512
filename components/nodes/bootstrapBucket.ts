/**
 * The bootstrap bucket: the groups' bootstrap scripts (bootstrapBundle.ts), which hold nothing secret (no
 * secret is ever in user data or the script: the nodes fetch theirs from SSM). Encrypted with S3's own keys
 * (the cluster's key opens only SSM parameters to the node role), all public access blocked, objects owned by
 * the bucket, every request without TLS denied. Each group's script is declared with its launch template
 * (nodeLaunchTemplate.ts); the bucket goes with the stack.
 */
import { Bucket } from "@pulumi/aws/s3/bucket";
import { BucketOwnershipControls } from "@pulumi/aws/s3/bucketOwnershipControls";
import { BucketPolicy } from "@pulumi/aws/s3/bucketPolicy";
import { BucketPublicAccessBlock } from "@pulumi/aws/s3/bucketPublicAccessBlock";
import { BucketServerSideEncryptionConfiguration } from "@pulumi/aws/s3/bucketServerSideEncryptionConfiguration";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { clusterTags } from "../tags";
import { bootstrapBucketName } from "./bootstrapBundle";

export interface BootstrapBucketArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<{ accountId: string; region: string }>;
}

export class BootstrapBucket extends pulumi.ComponentResource {
  readonly bucketName: pulumi.Output<string>;
  /** The bucket once its settings are in place: what an instance's boot waits for. */
  readonly ready: pulumi.Output<pulumi.Resource[]>;

  constructor(name: string, args: BootstrapBucketArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:nodes:BootstrapBucket", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const bucketName = args.coordinates.apply((c) => bootstrapBucketName(spec.clusterName, c.accountId, c.region));
    // Its objects are the program's own output, written again by every update: nothing to keep at destroy.
    const bucket = new Bucket(
      name,
      { bucket: bucketName, forceDestroy: true, tags: bucketName.apply((n) => clusterTags(spec, n)) },
      parent,
    );
    const settings = [
      new BucketPublicAccessBlock(
        name,
        {
          bucket: bucket.id,
          blockPublicAcls: true,
          blockPublicPolicy: true,
          ignorePublicAcls: true,
          restrictPublicBuckets: true,
        },
        parent,
      ),
      new BucketOwnershipControls(
        name,
        { bucket: bucket.id, rule: { objectOwnership: "BucketOwnerEnforced" } },
        parent,
      ),
      new BucketServerSideEncryptionConfiguration(
        name,
        { bucket: bucket.id, rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: "AES256" } }] },
        parent,
      ),
      new BucketPolicy(
        name,
        {
          bucket: bucket.id,
          policy: bucket.arn.apply((arn) =>
            JSON.stringify({
              Version: "2012-10-17",
              Statement: [
                {
                  Sid: "DenyInsecureTransport",
                  Effect: "Deny",
                  Principal: "*",
                  Action: "s3:*",
                  Resource: [arn, `${arn}/*`],
                  Condition: { Bool: { "aws:SecureTransport": "false" } },
                },
              ],
            }),
          ),
        },
        parent,
      ),
    ];
    this.bucketName = bucket.bucket;
    this.ready = pulumi.output([bucket, ...settings]);
    this.registerOutputs({ bucketName: this.bucketName });
  }
}

/**
 * ClusterSecrets: the cluster's KMS key, under which every secret the cluster keeps in SSM is encrypted (the
 * key's policy lets workers decrypt only `node/` and their own credentials), and the etcd snapshots. The
 * program makes no secret itself: the cluster's CAs and service-account key are made by the first
 * control-plane node's kubeadm init and stored under this key (bootstrap/control-plane.sh), so they are
 * never in the stack's state or in user data; a worker's credential to join is issued to its instance alone,
 * by the control plane (bootstrap/node-credentials.sh); admins get tokens through the cluster's admin role
 * (components/adminAccess).
 */
import { Alias as KmsAlias } from "@pulumi/aws/kms/alias";
import { Key as KmsKey } from "@pulumi/aws/kms/key";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AwsCoordinates } from "../iam/statementSource";
import { clusterTags } from "../tags";
import { secretsKeyPolicy } from "./keyPolicy";
import { secretsKeyAlias } from "../nodes/secretPaths";

export interface ClusterSecretsArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<AwsCoordinates & { dnsSuffix: string }>;
  /** The worker role, which the key's policy keeps to the node parameters. */
  nodeRoleArn: pulumi.Input<string>;
  /** The control-plane role, which the key's policy lets encrypt the etcd snapshots. */
  controlPlaneRoleArn: pulumi.Input<string>;
  /** The etcd backup bucket's ARN, whose snapshots the key encrypts. */
  backupBucketArn: pulumi.Input<string>;
}

export class ClusterSecrets extends pulumi.ComponentResource {
  /** The cluster's KMS key, under which every SecureString of the cluster is encrypted. */
  readonly keyArn: pulumi.Output<string>;

  constructor(name: string, args: ClusterSecretsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:secrets:ClusterSecrets", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };

    const key = new KmsKey(
      `${name}-key`,
      {
        description: `SecureString parameters of cluster ${spec.clusterName}`,
        enableKeyRotation: true,
        deletionWindowInDays: 30,
        policy: pulumi
          .all([args.coordinates, args.nodeRoleArn, args.controlPlaneRoleArn, args.backupBucketArn])
          .apply(([at, nodeRoleArn, controlPlaneRoleArn, backupBucketArn]) =>
            JSON.stringify(
              secretsKeyPolicy({
                clusterName: spec.clusterName,
                at,
                nodeRoleArn,
                controlPlaneRoleArn,
                backupBucketArn,
                restorePrincipals: spec.controlPlane.backupRestorePrincipals,
              }),
            ),
          ),
        tags: clusterTags(spec, secretsKeyAlias(spec.clusterName)),
      },
      // The etcd snapshots in the kept backup bucket are under this key, and so are the Secrets encryption
      // keys (bootstrap/encryption.sh): `pulumi destroy` leaves it, or the backups would die with the cluster.
      { ...parent, retainOnDelete: true },
    );
    new KmsAlias(`${name}-key`, { name: secretsKeyAlias(spec.clusterName), targetKeyId: key.arn }, parent);

    this.keyArn = key.arn;
    this.registerOutputs({ keyArn: this.keyArn });
  }
}

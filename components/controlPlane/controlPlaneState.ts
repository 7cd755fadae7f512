/**
 * ControlPlaneState: what keeps the cluster's state beyond any one control-plane instance: the bucket of
 * etcd snapshots and the alarm on their age, the name of the Secrets encryption keys' parameter, and the name of the init record, the SSM parameter the node that creates the cluster
 * creates (never Pulumi: its existence is the lock). The name carries an id of this stack's cluster, so a
 * cluster destroyed and created again under the same name starts with no record.
 */
import * as pulumi from "@pulumi/pulumi";
import { RandomId } from "@pulumi/random/randomId";
import type { ClusterSpec } from "../../config/types";
import { ENCRYPTION_KEYS_PARAMETER, INIT_RECORD_PARAMETER } from "../nodes/controlPlaneNames";
import { parameterPrefix } from "../secrets/paths";
import { declareBackupAlarm } from "./backupAlarm";
import { declareBackupBucket } from "./etcdBackups";

export interface ControlPlaneStateArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<{ accountId: string; region: string }>;
  /** The control-plane role's ARN: the only writer of the backup bucket. */
  controlPlaneRoleArn: pulumi.Output<string>;
  /** The cluster's KMS key: the snapshots' encryption key. */
  keyArn: pulumi.Output<string>;
}

export class ControlPlaneState extends pulumi.ComponentResource {
  /** The init record's SSM parameter name. */
  readonly initRecord: pulumi.Output<string>;
  /** The bucket of etcd snapshots. */
  readonly backupBucket: pulumi.Output<string>;
  /**
   * The SSM parameter of the keys that encrypt Secrets in etcd, which the first control-plane node creates
   * (bootstrap/encryption.sh): never in this stack's state. Named by the cluster's id, like the init record,
   * so a cluster created again under the same name never finds keys under a deleted KMS key.
   */
  readonly encryptionKeys: pulumi.Output<string>;

  constructor(name: string, args: ControlPlaneStateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:controlPlane:ControlPlaneState", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const clusterId = new RandomId(`${name}-cluster-id`, { byteLength: 6 }, parent);
    const prefix = parameterPrefix(spec.clusterName, "control-plane");
    this.initRecord = pulumi.interpolate`${prefix}${INIT_RECORD_PARAMETER}-${clusterId.hex}`;
    this.encryptionKeys = pulumi.interpolate`${prefix}${ENCRYPTION_KEYS_PARAMETER}-${clusterId.hex}`;
    this.backupBucket = declareBackupBucket(name, spec, args.coordinates, args.controlPlaneRoleArn, args.keyArn, this);
    declareBackupAlarm(name, spec, this);
    this.registerOutputs({
      initRecord: this.initRecord,
      backupBucket: this.backupBucket,
      encryptionKeys: this.encryptionKeys,
    });
  }
}

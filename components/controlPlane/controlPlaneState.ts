/**
 * ControlPlaneState: what keeps the cluster's state beyond any one control-plane instance: the bucket of
 * etcd snapshots and the alarm on their age, and the names of the SSM parameters the control plane creates
 * (never Pulumi): the init record (its existence is the lock), the Secrets encryption keys, the cluster's
 * shared keys and its CA's certificate. The names carry an id of this stack's cluster, so a cluster destroyed
 * and created again under the same name starts with none of them.
 */
import * as pulumi from "@pulumi/pulumi";
import { RandomId } from "@pulumi/random/randomId";
import type { ClusterSpec } from "../../config/types";
import {
  CLUSTER_CA_PARAMETER,
  ENCRYPTION_KEYS_PARAMETER,
  INIT_RECORD_PARAMETER,
  RESTORE_REQUEST_PARAMETER,
  SHARED_PKI_PARAMETER,
} from "../nodes/controlPlaneNames";
import { parameterPrefix } from "../nodes/secretPaths";
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
  /** Where `npm run restore-snapshot` names the snapshot to restore (a parameter no one declares). */
  readonly restoreRequest: pulumi.Output<string>;
  /** The bucket of etcd snapshots. */
  readonly backupBucket: pulumi.Output<string>;
  /**
   * The SSM parameter of the keys that encrypt Secrets in etcd, which the first control-plane node creates
   * (bootstrap/encryption.sh): never in this stack's state. Named by the cluster's id, like the init record,
   * so a cluster created again under the same name never finds keys under a deleted KMS key.
   */
  readonly encryptionKeys: pulumi.Output<string>;
  /**
   * The folder of the cluster's CAs and service-account key, which the first control-plane node's kubeadm init
   * makes and stores there (bootstrap/control-plane.sh): never in this stack's state.
   */
  readonly sharedPki: pulumi.Output<string>;
  /** The parameter of the cluster CA's certificate, stored with them, which workers and `pulumi up` read. */
  readonly clusterCa: pulumi.Output<string>;

  constructor(name: string, args: ControlPlaneStateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:controlPlane:ControlPlaneState", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const clusterId = new RandomId(`${name}-cluster-id`, { byteLength: 6 }, parent);
    const prefix = parameterPrefix(spec.clusterName, "control-plane");
    this.initRecord = pulumi.interpolate`${prefix}${INIT_RECORD_PARAMETER}-${clusterId.hex}`;
    this.restoreRequest = pulumi.interpolate`${prefix}${RESTORE_REQUEST_PARAMETER}-${clusterId.hex}`;
    this.encryptionKeys = pulumi.interpolate`${prefix}${ENCRYPTION_KEYS_PARAMETER}-${clusterId.hex}`;
    this.sharedPki = pulumi.interpolate`${prefix}${SHARED_PKI_PARAMETER}-${clusterId.hex}/`;
    const nodePrefix = parameterPrefix(spec.clusterName, "node");
    this.clusterCa = pulumi.interpolate`${nodePrefix}${CLUSTER_CA_PARAMETER}-${clusterId.hex}`;
    this.backupBucket = declareBackupBucket(name, spec, args.coordinates, args.controlPlaneRoleArn, args.keyArn, this);
    declareBackupAlarm(name, spec, this);
    this.registerOutputs({
      initRecord: this.initRecord,
      restoreRequest: this.restoreRequest,
      backupBucket: this.backupBucket,
      encryptionKeys: this.encryptionKeys,
      sharedPki: this.sharedPki,
      clusterCa: this.clusterCa,
    });
  }
}

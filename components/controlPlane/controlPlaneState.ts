/**
 * ControlPlaneState: what keeps the cluster's state beyond any one control-plane instance: an etcd volume
 * per member, the control-plane tools bundle (etcd membership on termination) control-plane nodes fetch at boot, and the name of the init
 * record, the SSM parameter the node that creates the cluster creates (never Pulumi: its existence is the
 * lock). The name carries an id of this stack's cluster, so a cluster destroyed and created again under
 * the same name starts with no record.
 */
import * as ebs from "@pulumi/aws/ebs";
import * as ssm from "@pulumi/aws/ssm";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import type { ClusterSpec } from "../../spec/types";
import { ETCD_MEMBER_TAG, ETCD_STATE_TAG, INIT_RECORD_PARAMETER } from "../nodes/controlPlaneState";
import { instanceGroups } from "../nodes/instanceGroups";
import { controlPlaneToolsParts, toolsPartParameter } from "../nodes/controlPlaneTools";
import { parameterPrefix } from "../secrets/paths";
import { clusterTags } from "../tags";
import { declareBackupBucket } from "./etcdBackups";

export interface ControlPlaneStateArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<{ accountId: string; region: string }>;
  /** The control-plane role's ARN: the only writer of the backup bucket. */
  controlPlaneRoleArn: pulumi.Output<string>;
}

/** Size of each member's etcd volume (kOps's default for etcd-manager volumes). */
export const ETCD_VOLUME_GIB = 20;

/** The property path of the volume's state tag for `ignoreChanges` (a map key with "/": quoted). */
export const ETCD_STATE_IGNORED = `tags[${JSON.stringify(ETCD_STATE_TAG)}]`;

export class ControlPlaneState extends pulumi.ComponentResource {
  /** The init record's SSM parameter name. */
  readonly initRecord: pulumi.Output<string>;
  /** The bucket of etcd snapshots. */
  readonly backupBucket: pulumi.Output<string>;

  constructor(name: string, args: ControlPlaneStateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:controlPlane:ControlPlaneState", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    // The bundle in as many parameters as it takes; the first keeps the resource name it always had.
    controlPlaneToolsParts().forEach((value, index) => {
      const parameter = toolsPartParameter(index);
      new ssm.Parameter(
        index === 0 ? `${name}-tools` : `${name}-tools-${index}`,
        {
          name: `${parameterPrefix(spec.clusterName, "control-plane")}${parameter}`,
          type: "String",
          // Above 4 KB SSM stores it in the advanced tier.
          tier: "Intelligent-Tiering",
          value,
          description: `Control-plane tools (etcd membership) of cluster ${spec.clusterName}`,
          tags: clusterTags(spec, `control-plane/${parameter}`),
        },
        parent,
      );
    });
    // One encrypted volume per member, in the member's zone; its instance attaches it by these tags. The
    // control-plane groups depend on this component, so a removed member's group goes before its volume.
    // The nodes set the volume's state tag: after a refresh the program's tags would remove it, so that
    // key is ignored (the engine keeps the refreshed value in the new inputs).
    for (const group of instanceGroups(spec).filter((g) => g.role === "control-plane")) {
      const zone = group.zones[0];
      const volumeName = `etcd-${zone}.${spec.clusterName}`;
      new ebs.Volume(
        `${name}-etcd-${zone}`,
        {
          availabilityZone: zone,
          size: ETCD_VOLUME_GIB,
          type: "gp3",
          encrypted: true,
          tags: clusterTags(spec, volumeName, { [ETCD_MEMBER_TAG]: zone, "k8s.io/role/control-plane": "1" }),
        },
        { ...parent, ignoreChanges: [ETCD_STATE_IGNORED] },
      );
    }
    const clusterId = new random.RandomId(`${name}-cluster-id`, { byteLength: 6 }, parent);
    const prefix = parameterPrefix(spec.clusterName, "control-plane");
    this.initRecord = pulumi.interpolate`${prefix}${INIT_RECORD_PARAMETER}-${clusterId.hex}`;
    this.backupBucket = declareBackupBucket(name, spec, args.coordinates, args.controlPlaneRoleArn, this);
    this.registerOutputs({ initRecord: this.initRecord, backupBucket: this.backupBucket });
  }
}

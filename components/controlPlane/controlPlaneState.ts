/**
 * ControlPlaneState: what keeps the cluster's state beyond any one control-plane instance: the control-plane
 * tools bundle (etcd membership on termination) control-plane nodes fetch at boot, and the name of the init
 * record, the SSM parameter the node that creates the cluster creates (never Pulumi: its existence is the
 * lock). The name carries an id of this stack's cluster, so a cluster destroyed and created again under
 * the same name starts with no record.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import type { ClusterSpec } from "../../spec/types";
import { INIT_RECORD_PARAMETER, TOOLS_PARAMETER } from "../nodes/controlPlaneState";
import { renderControlPlaneTools } from "../nodes/controlPlaneTools";
import { parameterPrefix } from "../secrets/paths";
import { clusterTags } from "../tags";

export interface ControlPlaneStateArgs {
  spec: ClusterSpec;
}

export class ControlPlaneState extends pulumi.ComponentResource {
  /** The init record's SSM parameter name. */
  readonly initRecord: pulumi.Output<string>;

  constructor(name: string, args: ControlPlaneStateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:controlPlane:ControlPlaneState", name, {}, opts);
    const { spec } = args;
    const parent = { parent: this };
    const toolsName = `${parameterPrefix(spec.clusterName, "control-plane")}${TOOLS_PARAMETER}`;
    new aws.ssm.Parameter(
      `${name}-tools`,
      {
        name: toolsName,
        type: "String",
        // Above 4 KB SSM stores it in the advanced tier; the AWS CLI's text output adds the final newline.
        tier: "Intelligent-Tiering",
        value: renderControlPlaneTools().replace(/\n$/, ""),
        description: `Control-plane tools (etcd membership) of cluster ${spec.clusterName}`,
        tags: clusterTags(spec, `control-plane/${TOOLS_PARAMETER}`),
      },
      parent,
    );
    const clusterId = new random.RandomId(`${name}-cluster-id`, { byteLength: 6 }, parent);
    const prefix = parameterPrefix(spec.clusterName, "control-plane");
    this.initRecord = pulumi.interpolate`${prefix}${INIT_RECORD_PARAMETER}-${clusterId.hex}`;
    this.registerOutputs({ initRecord: this.initRecord });
  }
}

/**
 * An instance role: IAM role with the EC2 trust policy, its inline policy and an instance profile.
 * `MasterIamRole` (control plane) and `NodeIamRole` (workers) are the two kinds; the policy documents
 * are composed in `policies.ts` from the statement sources of `sources/`, one per feature.
 */
import * as iam from "@pulumi/aws/iam";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { awsName } from "../naming";
import { clusterTags } from "../tags";
import { ec2TrustPolicy } from "./policyDocument";
import { rolePolicy } from "./rolePolicies";
import type { AwsCoordinates, RoleKind } from "./statementSource";

export interface InstanceRoleArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<AwsCoordinates & { dnsSuffix: string }>;
}

/** IAM role names: `[\w+=,.@-]`, at most 64 characters. */
const roleName = (prefix: string, clusterName: string) => awsName(`${prefix}.${clusterName}`, 64, /[^\w+=,.@-]/g);

abstract class InstanceRole extends pulumi.ComponentResource {
  readonly roleName: pulumi.Output<string>;
  readonly roleArn: pulumi.Output<string>;
  readonly instanceProfileName: pulumi.Output<string>;
  readonly instanceProfileArn: pulumi.Output<string>;

  protected constructor(
    type: string,
    name: string,
    args: InstanceRoleArgs,
    physicalPrefix: string,
    kind: RoleKind,
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super(type, name, {}, opts);
    const { spec } = args;
    const physical = roleName(physicalPrefix, spec.clusterName);
    const parent = { parent: this };
    const role = new iam.Role(
      `${name}-role`,
      {
        name: physical,
        path: spec.iam.path,
        description: `Instance role of the ${physicalPrefix} of cluster ${spec.clusterName}`,
        assumeRolePolicy: args.coordinates.apply((c) => JSON.stringify(ec2TrustPolicy(c.dnsSuffix))),
        permissionsBoundary: spec.iam.permissionsBoundary || undefined,
        tags: clusterTags(spec, physical),
      },
      parent,
    );
    new iam.RolePolicy(
      `${name}-policy`,
      {
        name: physical,
        role: role.name,
        policy: args.coordinates.apply((c) => JSON.stringify(rolePolicy(kind, spec, c))),
      },
      parent,
    );
    const profile = new iam.InstanceProfile(
      `${name}-profile`,
      { name: physical, path: spec.iam.path, role: role.name, tags: clusterTags(spec, physical) },
      parent,
    );
    this.roleName = role.name;
    this.roleArn = role.arn;
    this.instanceProfileName = profile.name;
    this.instanceProfileArn = profile.arn;
    this.registerOutputs({ roleArn: this.roleArn, instanceProfileArn: this.instanceProfileArn });
  }
}

/** The control-plane role: what its node bootstrap and images need, and in ENI mode the Cilium operator's EC2 actions. */
export class MasterIamRole extends InstanceRole {
  constructor(name: string, args: InstanceRoleArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:iam:MasterIamRole", name, args, "masters", "control-plane", opts);
  }
}

/** The worker role: what its node bootstrap (in ENI mode the instance-type lookup too) and images need. */
export class NodeIamRole extends InstanceRole {
  constructor(name: string, args: InstanceRoleArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:iam:NodeIamRole", name, args, "nodes", "node", opts);
  }
}

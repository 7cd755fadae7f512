/**
 * An instance role: IAM role with the EC2 trust policy, one customer-managed policy per feature attached to
 * it, and an instance profile. `MasterIamRole` (control plane) and `NodeIamRole` (workers) are the two kinds;
 * the policy documents are composed in `rolePolicies.ts` from the statement sources it is given, one per
 * feature (each in its feature's folder, listed in components/features.ts). Managed
 * policies rather than one inline policy: a role's inline policies share 10,240 characters, which the
 * control plane's outgrows with a long cluster name; each managed policy has 6,144 of its own.
 */
import { InstanceProfile } from "@pulumi/aws/iam/instanceProfile";
import { Policy } from "@pulumi/aws/iam/policy";
import { Role } from "@pulumi/aws/iam/role";
import { RolePolicyAttachment } from "@pulumi/aws/iam/rolePolicyAttachment";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { awsName } from "../naming";
import { clusterTags } from "../tags";
import { ec2TrustPolicy, PolicyDocument } from "./policyDocument";
import { POLICY_NAME_CHARACTERS, rolePolicies, roleSources } from "./rolePolicies";
import { IAM_NAME_REJECTS, roleName } from "./roleNames";
import type { AwsCoordinates, RoleKind, StatementSource } from "./statementSource";

/** What a role reads of the cluster's config: its name and cloud labels, and the IAM path and boundary. */
export type RoleSpec = Pick<ClusterSpec, "clusterName" | "cloudLabels" | "iam">;

/** A policy the role gets: named after its `sidPrefix`, its document once the account's coordinates are known. */
export interface RolePolicy {
  sidPrefix: string;
  document: pulumi.Input<PolicyDocument>;
}

export interface InstanceRoleArgs {
  spec: RoleSpec;
  coordinates: pulumi.Output<AwsCoordinates & { dnsSuffix: string }>;
  /** Its policies, one per feature that grants this role anything (featurePolicies). */
  policies: readonly RolePolicy[];
}

/**
 * The policies the features' statement sources give a role for a spec: one per source with statements for
 * it. Which sources those are depends on the role and the spec alone, so the policies are known before the
 * coordinates resolve (rolePolicies.ts).
 */
export function featurePolicies(
  sources: readonly StatementSource[],
  kind: RoleKind,
  spec: ClusterSpec,
  coordinates: pulumi.Output<AwsCoordinates>,
): RolePolicy[] {
  const documents = coordinates.apply((c) => rolePolicies(sources, kind, spec, c));
  return roleSources(sources, kind, spec).map((source) => ({
    sidPrefix: source.sidPrefix,
    document: documents.apply((all) => all.find((p) => p.source === source)!.document),
  }));
}

/** A feature's policy on a role: `<role name>.<sidPrefix>`, e.g. `masters.dev.k8s.local.CiliumEni`. */
export const policyName = (role: string, sidPrefix: string) =>
  awsName(`${role}.${sidPrefix}`, POLICY_NAME_CHARACTERS, IAM_NAME_REJECTS);

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
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super(type, name, {}, opts);
    const { spec } = args;
    const physical = roleName(physicalPrefix, spec.clusterName);
    const parent = { parent: this };
    const role = new Role(
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
    for (const { sidPrefix, document } of args.policies) {
      const policyPhysical = policyName(physical, sidPrefix);
      const policy = new Policy(
        `${name}-${sidPrefix}`,
        {
          name: policyPhysical,
          path: spec.iam.path,
          description: `${sidPrefix} permissions of the ${physicalPrefix} of cluster ${spec.clusterName}`,
          policy: pulumi.output(document).apply((d) => JSON.stringify(d)),
          tags: clusterTags(spec, policyPhysical),
        },
        parent,
      );
      new RolePolicyAttachment(`${name}-${sidPrefix}-attachment`, { role: role.name, policyArn: policy.arn }, parent);
    }
    const profile = new InstanceProfile(
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
    super("cilium-cluster:iam:MasterIamRole", name, args, "masters", opts);
  }
}

/** The worker role: what its node bootstrap (in ENI mode the instance-type lookup too) and images need. */
export class NodeIamRole extends InstanceRole {
  constructor(name: string, args: InstanceRoleArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:iam:NodeIamRole", name, args, "nodes", opts);
  }
}

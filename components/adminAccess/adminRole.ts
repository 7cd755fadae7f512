/**
 * The cluster's admin role, `admins.<clusterName>`: the one way to cluster-admin from outside the control
 * plane. Whoever may assume it gets 15-minute tokens that aws-iam-authenticator, on every control-plane node,
 * maps to kubeadm's admin group (authenticator.ts): `npm run kubeconfig`, and the Kubernetes provider of
 * `pulumi up`. The role holds no AWS permission; assuming it is the grant. Its sessions last at most an hour.
 */
import { Role } from "@pulumi/aws/iam/role";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import type { AwsCoordinates } from "../iam/statementSource";
import { clusterTags } from "../tags";
import { adminRoleName, adminTrustPolicy, ADMIN_SESSION_SECONDS } from "./adminRoleFacts";

export interface ClusterAdminRoleArgs {
  spec: ClusterSpec;
  coordinates: pulumi.Output<AwsCoordinates & { dnsSuffix: string }>;
}

export class ClusterAdminRole extends pulumi.ComponentResource {
  readonly roleArn: pulumi.Output<string>;

  constructor(name: string, args: ClusterAdminRoleArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:adminAccess:ClusterAdminRole", name, {}, opts);
    const { spec } = args;
    const physical = adminRoleName(spec.clusterName);
    const role = new Role(
      `${name}-role`,
      {
        name: physical,
        path: spec.iam.path,
        description: `Cluster-admin access to cluster ${spec.clusterName} (aws-iam-authenticator)`,
        assumeRolePolicy: args.coordinates.apply((at) => JSON.stringify(adminTrustPolicy(spec.api.admins, at))),
        maxSessionDuration: ADMIN_SESSION_SECONDS,
        permissionsBoundary: spec.iam.permissionsBoundary || undefined,
        tags: clusterTags(spec, physical),
      },
      { parent: this },
    );
    this.roleArn = role.arn;
    this.registerOutputs({ roleArn: this.roleArn });
  }
}

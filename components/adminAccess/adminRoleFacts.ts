/**
 * The admin role's name, trust policy and session length, pure: what ClusterAdminRole declares, what a
 * control-plane node's authenticator maps (authenticator.ts) and what `npm run kubeconfig` assumes.
 */
import { roleName } from "../iam/roleNames";
import type { AwsCoordinates } from "../iam/statementSource";

/** `admins.<clusterName>`, shortened as the instance roles' names are. */
export const adminRoleName = (clusterName: string) => roleName("admins", clusterName);

/**
 * The role's longest session: IAM's least (an hour), also its limit when a role assumes it (role chaining).
 * `npm run kubeconfig` asks for 15 minutes, but a caller may ask for the hour.
 */
export const ADMIN_SESSION_SECONDS = 3600;

/**
 * Who may assume the role: the principals of `api.admins`, or, when it is empty, the account (any of its
 * principals whose own IAM policies allow `sts:AssumeRole` on the role, as for every role the account trusts).
 */
export function adminTrustPolicy(admins: readonly string[], at: AwsCoordinates) {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ClusterAdmins",
        Effect: "Allow",
        Principal: { AWS: admins.length > 0 ? [...admins] : `arn:${at.partition}:iam::${at.accountId}:root` },
        Action: "sts:AssumeRole",
      },
    ],
  };
}

/**
 * The role as aws-iam-authenticator matches it: an assumed role's ARN canonicalised (`arn:…:iam::<account>:
 * role/<name>`), which carries no IAM path, whatever `iam.path` the role is at.
 */
export const mappedAdminRoleArn = (clusterName: string, at: AwsCoordinates) =>
  `arn:${at.partition}:iam::${at.accountId}:role/${adminRoleName(clusterName)}`;

/**
 * Settings fixed once the stack is deployed, held to what its last update applied (components/appliedStateOutputs.ts).
 * Each would replace resources that cannot be replaced under a running cluster, so `pulumi up` would stop half
 * done; a cluster with another value is a new stack. Pure: the program refuses them before it declares
 * anything, with the config's other errors and the fix that sets the applied value back.
 */
import type { AppliedState } from "../appliedState";
import type { ClusterSpec } from "../types";
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

interface FixedSetting {
  field: string;
  applied: (state: AppliedState) => string | undefined;
  value: (spec: ClusterSpec) => string;
  /** Why another value cannot be applied, given the applied one. */
  why: (applied: string) => string;
}

const FIXED: readonly FixedSetting[] = [
  {
    field: "iam.path",
    applied: (state) => state.iamPath,
    value: (spec) => spec.iam.path,
    // IAM names are unique in the account whatever the path (IAM identifiers: friendly names and paths), so
    // Pulumi deletes each role, policy and instance profile before creating it again (cli/plan/deleteFirst.ts).
    why: (applied) =>
      `the stack's roles, policies and instance profiles are at ${applied} (its controlPlaneRoleArn output): ` +
      "IAM names are unique in the account whatever the path, so each would be deleted before it is created " +
      "at the new path, taking the running nodes' AWS credentials with it",
  },
  {
    field: "network.cidr",
    applied: (state) => state.networkCidr,
    value: (spec) => spec.network.cidr,
    // EC2 refuses to delete a security group or subnet that network interfaces still use (DependencyViolation),
    // and the nodes and load balancers leave them only once replaced themselves.
    why: (applied) =>
      `the stack's VPC is ${applied} (its vpcCidr output): another CIDR is a new VPC, whose replacement would ` +
      "delete the subnets and security groups the running nodes and load balancers use, which EC2 refuses " +
      "(DependencyViolation)",
  },
];

/** The errors of the settings, among those whose own value is valid (`valid`), that differ from the applied. */
export function fixedSettingErrors(
  state: AppliedState,
  spec: ClusterSpec,
  valid: (field: string) => boolean,
): FieldError[] {
  return FIXED.flatMap(({ field, applied, value, why }) => {
    const was = applied(state);
    if (was === undefined || !valid(field) || was === value(spec)) return [];
    return [
      withSuggestion(invalid(field, value(spec), `${why(was)}; a cluster with another value is a new stack`), was),
    ];
  });
}

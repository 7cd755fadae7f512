/**
 * `iam.path` is fixed once the stack has created its roles. A new path replaces every role, policy and
 * instance profile under the same names, which IAM holds unique in the account whatever the path (IAM
 * identifiers: friendly names and paths), so Pulumi deletes each before creating it again (plan/deleteFirst.ts):
 * the running nodes would lose their instance profile, and their AWS credentials with it, and nothing in the
 * change replaces them. Pure: the program refuses it before it declares anything.
 */
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

const FIELD = "iam.path";

/** `applied`: the path of the roles the stack's last update left (components/appliedState.ts); none before. */
export function iamPathErrors(applied: string | undefined, path: string): FieldError[] {
  if (applied === undefined || applied === path) return [];
  const detail =
    `the stack's roles, policies and instance profiles are at ${applied} (its controlPlaneRoleArn output): IAM ` +
    "names are unique in the account whatever the path, so each would be deleted before it is created at the " +
    "new path, taking the running nodes' AWS credentials with it; a cluster at another path is a new stack";
  return [withSuggestion(invalid(FIELD, path, detail), applied)];
}

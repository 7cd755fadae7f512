/**
 * `iam.path` is fixed once the stack has created its roles. IAM names are unique in the account whatever the
 * path (IAM identifiers: friendly names and paths), and a new path replaces every role, policy and instance
 * profile under the same names: Pulumi would create each replacement beside the original, which IAM refuses
 * (EntityAlreadyExists), and deleting the originals first would take the credentials of the running nodes,
 * whose instance profile goes with them. Pure: the program refuses it before it declares anything.
 */
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

const FIELD = "iam.path";

/** `applied`: the path of the roles the stack's last update left (components/appliedState.ts); none before. */
export function iamPathErrors(applied: string | undefined, path: string): FieldError[] {
  if (applied === undefined || applied === path) return [];
  const detail =
    `the stack's roles, policies and instance profiles are at ${applied} (its controlPlaneRoleArn output): IAM ` +
    "names are unique in the account whatever the path, so they cannot be created again at another path beside " +
    "the running ones; a cluster at another path is a new stack";
  return [withSuggestion(invalid(FIELD, path, detail), applied)];
}

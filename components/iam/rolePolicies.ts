/**
 * The instance roles' policies, composed from the statement sources (one per feature): one customer-managed
 * policy per source that grants the role anything. Pure and deterministic; nothing is granted that no
 * feature of this cluster calls.
 */
import type { ClusterSpec } from "../../config/types";
import { policyDocument, PolicyDocument } from "./policyDocument";
import type { AwsCoordinates, RoleKind, StatementSource } from "./statementSource";

export type { AwsCoordinates, RoleKind } from "./statementSource";

/**
 * IAM quotas ("IAM and AWS STS quotas", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html):
 * a managed policy holds at most 6,144 characters, whitespace aside; a role takes at most 10 managed
 * policies unless the account's quota is raised; a policy's name is at most 128 characters.
 */
export const MANAGED_POLICY_CHARACTERS = 6144;
export const MANAGED_POLICIES_PER_ROLE = 10;
export const POLICY_NAME_CHARACTERS = 128;

/** One feature's policy on a role. */
export interface SourcePolicy {
  source: StatementSource;
  document: PolicyDocument;
}

/** The role's policies: one per statement source with statements for it, in the sources' order. */
export function rolePolicies(
  sources: readonly StatementSource[],
  role: RoleKind,
  spec: ClusterSpec,
  at: AwsCoordinates,
): SourcePolicy[] {
  return sources.flatMap((source) => {
    const statements = source.statements(role, spec, at);
    return statements.length ? [{ source, document: policyDocument(statements) }] : [];
  });
}

/**
 * The sources with statements for the role. Whether a source has any depends on the role and the spec, never
 * on the account's coordinates (tests/components/iamPolicyLayout.test.ts holds every example to it), so the
 * policies are declared before the coordinates resolve.
 */
export function roleSources(sources: readonly StatementSource[], role: RoleKind, spec: ClusterSpec): StatementSource[] {
  return rolePolicies(sources, role, spec, UNRESOLVED).map((p) => p.source);
}
const UNRESOLVED: AwsCoordinates = { partition: "aws", region: "unresolved", accountId: "000000000000" };

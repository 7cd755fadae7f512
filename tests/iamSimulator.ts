/** The IAM policy simulator, shared by the IAM tests: may a role with these identity policies make this call? */
import { runSimulation } from "@cloud-copilot/iam-simulate";
import type { PolicyDocument } from "../components/iam/policyDocument";
import { STATEMENT_SOURCES } from "../components/features";
import { rolePolicies } from "../components/iam/rolePolicies";
import type { AwsCoordinates, RoleKind } from "../components/iam/statementSource";
import type { ClusterSpec } from "../config/types";

export const ACCOUNT_ID = "000000000000";

export interface Caller {
  /** The calling principal; a role of the account by default. */
  principal?: string;
  /** The resource's own policy (a KMS key policy), evaluated with the identity policy as AWS does. */
  resourcePolicy?: unknown;
}

/**
 * The simulator recognises a condition key with a variable part only after a slash (`aws:ResourceTag/<key>`)
 * and drops KMS's `kms:EncryptionContext:<key>` from the request. So that key is handed to it, in the
 * policies and the request alike, as a string key it does read; its operators are still the simulator's.
 */
const ENCRYPTION_CONTEXT = /kms:EncryptionContext:/g;
const READABLE = "aws:RequestTag/kms-encryption-context-";
const readable = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(ENCRYPTION_CONTEXT, READABLE));

/** The documents of every policy attached to the role, as IAM evaluates them: together. */
export const attachedPolicies = (role: RoleKind, spec: ClusterSpec, at: AwsCoordinates): PolicyDocument[] =>
  rolePolicies(STATEMENT_SOURCES, role, spec, at).map((p) => p.document);

export async function may(
  /** The role's identity policies: one document, or every policy attached to it. */
  policies: PolicyDocument | readonly PolicyDocument[],
  action: string,
  resource: string,
  /** Request context keys, e.g. the resource's tags. */
  context: Record<string, string> = {},
  caller: Caller = {},
): Promise<boolean> {
  const result = await runSimulation(
    {
      request: {
        principal: caller.principal ?? `arn:aws:iam::${ACCOUNT_ID}:role/test`,
        action,
        resource: { resource, accountId: ACCOUNT_ID },
        contextVariables: readable(context),
      },
      identityPolicies: [policies].flat().map((policy, i) => ({ name: `policy-${i}`, policy: readable(policy) })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(caller.resourcePolicy ? { resourcePolicy: readable(caller.resourcePolicy) } : {}),
    },
    {},
  );
  if (result.resultType === "error") throw new Error(JSON.stringify(result.errors));
  // An encryption context the simulator did not read would make every condition on it fail, silently.
  const ignored = result.resultType === "single" ? (result.result.ignoredContextKeys ?? []) : [];
  if (ignored.some((k) => k.startsWith(READABLE))) throw new Error(`the simulator ignored ${ignored.join(", ")}`);
  return result.overallResult === "Allowed";
}

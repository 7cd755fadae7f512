/** The IAM policy simulator, shared by the IAM tests: may a role with this identity policy make this call? */
import { runSimulation } from "@cloud-copilot/iam-simulate";
import type { PolicyDocument } from "../components/iam/policyDocument";

export const ACCOUNT_ID = "000000000000";

export async function may(
  policy: PolicyDocument,
  action: string,
  resource: string,
  /** Request context keys, e.g. the resource's tags. */
  context: Record<string, string> = {},
): Promise<boolean> {
  const result = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT_ID}:role/test`,
        action,
        resource: { resource, accountId: ACCOUNT_ID },
        contextVariables: context,
      },
      identityPolicies: [{ name: "inline", policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === "error") throw new Error(JSON.stringify(result.errors));
  return result.overallResult === "Allowed";
}

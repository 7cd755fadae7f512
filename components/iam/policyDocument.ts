/** IAM policy documents as plain data, normalised so the same statements always render the same bytes. */
import { byCodePoint } from "../codePointOrder";

export type Condition = Record<string, Record<string, string | string[]>>;

export interface Statement {
  /** Stable id naming what the statement is for. */
  Sid: string;
  Effect: "Allow";
  Action: string[];
  Resource: string | string[];
  Condition?: Condition;
}

export interface PolicyDocument {
  Version: "2012-10-17";
  Statement: Statement[];
}

/** Statements sorted by Sid, actions sorted and de-duplicated, resources sorted. */
export function policyDocument(statements: readonly Statement[]): PolicyDocument {
  const normalised = statements.map((s) => ({
    ...s,
    Action: [...new Set(s.Action)].sort(),
    Resource: Array.isArray(s.Resource) ? [...new Set(s.Resource)].sort() : s.Resource,
  }));
  const sids = normalised.map((s) => s.Sid);
  if (new Set(sids).size !== sids.length) throw new Error(`duplicate statement ids: ${sids.join(", ")}`);
  return { Version: "2012-10-17", Statement: normalised.sort((a, b) => byCodePoint(a.Sid, b.Sid)) };
}

/** Lets EC2 instances assume the role (through their instance profile). */
export function ec2TrustPolicy(dnsSuffix: string) {
  return {
    Version: "2012-10-17",
    Statement: [
      { Sid: "Ec2AssumeRole", Effect: "Allow", Principal: { Service: `ec2.${dnsSuffix}` }, Action: "sts:AssumeRole" },
    ],
  };
}

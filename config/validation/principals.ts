/** A list of IAM principals in config: each a role or user ARN, none twice. Pure. */
import { FieldError, index, invalid, mustRemove } from "./fieldErrors";

const PRINCIPAL_ARN = /^arn:aws(-cn|-us-gov|-iso[a-z-]*)?:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/;

/** The errors of the principal list at config path `key`. */
export function principalErrors(key: string, arns: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  arns.forEach((arn, i) => {
    const path = index(key, i);
    if (!PRINCIPAL_ARN.test(arn))
      errors.push(
        mustRemove(invalid(path, arn, "must be an IAM role or user ARN (arn:aws:iam::<account>:role/<name>)")),
      );
    else if (seen.has(arn)) errors.push(mustRemove(invalid(path, arn, "duplicate entry")));
    seen.add(arn);
  });
  return errors;
}

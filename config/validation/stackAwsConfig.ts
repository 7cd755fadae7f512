/**
 * The stack's `aws:` config as the program's own AWS calls read it (components/stackAws.ts): `aws:region`,
 * `aws:profile` and `aws:assumeRoles` only. Other keys that change who calls or where are refused before
 * anything is declared, each with the fix, as are roles it could not assume.
 */
import { type FieldError, forbidden, invalid, mustRemove, required } from "./fieldErrors";

/** pulumi-aws config keys (`aws:<key>`) that change the caller or the endpoint, which the program does not honour. */
export const REFUSED_AWS_KEYS = [
  "accessKey",
  "secretKey",
  "token",
  "assumeRoleWithWebIdentity",
  "sharedConfigFiles",
  "sharedCredentialsFiles",
  "endpoints",
  "customCaBundle",
  "stsRegion",
  "ec2MetadataServiceEndpoint",
  "ec2MetadataServiceEndpointMode",
  "httpProxy",
  "httpsProxy",
  "noProxy",
  "insecure",
  "useFipsEndpoint",
  "useDualstackEndpoint",
];

const DURATION_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A Go duration (`1h`, `15m`, `1h30m`), as pulumi-aws reads `duration`, in whole seconds. */
export function durationSeconds(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  return Math.floor(parts.reduce((sum, [, n, unit]) => sum + Number(n) * DURATION_UNITS[unit], 0));
}

/** Every problem of the `aws:` keys in Pulumi's flat config (`aws:region`, ...), at once. */
export function stackAwsErrors(all: Record<string, string>): FieldError[] {
  const errors = REFUSED_AWS_KEYS.filter((key) => all[`aws:${key}`] !== undefined).map((key) =>
    mustRemove(
      forbidden(
        `aws:${key}`,
        "the program's own AWS calls during pulumi up (the control-plane member wait) use aws:region, aws:profile " +
          "and aws:assumeRoles only: put this setting in an AWS profile (~/.aws/config, ~/.aws/credentials) and " +
          "set aws:profile to it",
      ),
    ),
  );
  const text = all["aws:assumeRoles"];
  if (text === undefined) return errors;
  let roles: unknown;
  try {
    roles = JSON.parse(text);
  } catch {
    roles = text;
  }
  if (!Array.isArray(roles))
    return [...errors, invalid("aws:assumeRoles", text, "a list of roles, each {roleArn, ...}")];
  roles.forEach((role: unknown, i) => {
    const path = `aws:assumeRoles[${i}]`;
    const { roleArn, duration } = (typeof role === "object" && role !== null ? role : {}) as Record<string, unknown>;
    if (typeof roleArn !== "string" || !roleArn)
      errors.push(required(`${path}.roleArn`, "the ARN of the role to assume"));
    if (duration !== undefined && (typeof duration !== "string" || durationSeconds(duration) === undefined))
      errors.push(invalid(`${path}.duration`, duration, "a duration such as 1h or 15m"));
  });
  return errors;
}

/**
 * The stack's AWS configuration as an AWS SDK client's configuration, for the calls the program makes
 * itself during `pulumi up` (the control-plane member wait's DescribeInstanceRefreshes), so they act as the
 * stack's AWS provider does, not as whatever the SDK's default chain finds:
 * - `aws:region`;
 * - `aws:profile`, else the default chain (`AWS_PROFILE`, the `AWS_*` variables, ...), as the provider;
 * - `aws:assumeRoles`: each role assumed in turn (sts:AssumeRole), with the previous one's credentials, the
 *   first with the profile's; the SDK refreshes them before they expire.
 * Other `aws:` keys that change who calls or where (static keys, a web identity, other files, endpoints,
 * proxies) are refused, naming the key: a profile can hold each of them.
 */
import type { AssumeRoleCommandInput, STSClientConfig } from "@aws-sdk/client-sts";
import { formatFieldError } from "../config/validation/fieldErrors";
import { durationSeconds, stackAwsErrors } from "../config/validation/stackAwsConfig";

type Credentials = NonNullable<STSClientConfig["credentials"]>;

export interface StackAws {
  region: string;
  profile?: string;
  /** Absent: the default chain, with `profile`. */
  credentials?: Credentials;
  /** How the calls authenticate, for error messages. */
  description: string;
}

/** An item of `aws:assumeRoles`, as pulumi-aws takes it. */
interface AssumeRole {
  roleArn?: string;
  sessionName?: string;
  externalId?: string;
  duration?: string;
  policy?: string;
  policyArns?: string[];
  sourceIdentity?: string;
  tags?: Record<string, string>;
  transitiveTagKeys?: string[];
}

/** A role of `aws:assumeRoles`, which stackAwsErrors found well formed. */
function assumeRoleInput(role: AssumeRole): AssumeRoleCommandInput {
  return {
    RoleArn: role.roleArn,
    RoleSessionName: role.sessionName || `cilium-cluster-${Date.now()}`,
    ExternalId: role.externalId,
    DurationSeconds: role.duration === undefined ? undefined : durationSeconds(role.duration),
    Policy: role.policy,
    PolicyArns: role.policyArns?.map((arn) => ({ arn })),
    SourceIdentity: role.sourceIdentity,
    Tags: role.tags && Object.entries(role.tags).map(([Key, Value]) => ({ Key, Value })),
    TransitiveTagKeys: role.transitiveTagKeys,
  };
}

/** Credentials of `role`, assumed with `outer` (undefined: the default chain with the profile). */
function assumed(input: AssumeRoleCommandInput, region: string, profile: string | undefined, outer?: Credentials) {
  return async () => {
    // Loaded only when `pulumi up` calls AWS: a preview never needs the SDK.
    const sts = await import("@aws-sdk/client-sts");
    const client = new sts.STSClient({ region, profile, credentials: outer });
    try {
      const { Credentials: c } = await client.send(new sts.AssumeRoleCommand(input));
      if (!c?.AccessKeyId || !c.SecretAccessKey)
        throw new Error(`sts:AssumeRole of ${input.RoleArn} returned no credentials`);
      return {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiration: c.Expiration,
      };
    } finally {
      client.destroy();
    }
  };
}

/** The SDK configuration of the stack, from Pulumi's flat config (`aws:region`, ...); throws on what it cannot honour. */
export function stackAws(all: Record<string, string>): StackAws {
  const errors = stackAwsErrors(all);
  if (errors.length > 0) throw new Error(errors.map(formatFieldError).join("; "));
  const region = all["aws:region"];
  if (!region) throw new Error("aws:region is required: the AWS region of the stack");
  const profile = all["aws:profile"] || undefined;
  const roles = JSON.parse(all["aws:assumeRoles"] ?? "[]") as AssumeRole[];
  const inputs = roles.map(assumeRoleInput);
  const credentials = inputs.reduce<Credentials | undefined>(
    (outer, input) => assumed(input, region, profile, outer),
    undefined,
  );
  const description = [
    `region ${region}`,
    profile ? `profile ${profile}` : "the default credential chain",
    ...inputs.map((input) => `assuming ${input.RoleArn}`),
  ].join(", ");
  return { region, profile, credentials, description };
}

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

type Credentials = NonNullable<STSClientConfig["credentials"]>;

export interface StackAws {
  region: string;
  profile?: string;
  /** Absent: the default chain, with `profile`. */
  credentials?: Credentials;
  /** How the calls authenticate, for error messages. */
  description: string;
}

/** pulumi-aws config keys (`aws:<key>`) that change the caller or the endpoint, which the program does not honour. */
const REFUSED = [
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

const DURATION_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A Go duration (`1h`, `15m`, `1h30m`), as pulumi-aws reads `duration`, in whole seconds. */
export function durationSeconds(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  return Math.floor(parts.reduce((sum, [, n, unit]) => sum + Number(n) * DURATION_UNITS[unit], 0));
}

function assumeRoleInput(role: AssumeRole, path: string): AssumeRoleCommandInput {
  if (typeof role !== "object" || role === null || typeof role.roleArn !== "string" || !role.roleArn)
    throw new Error(`${path}.roleArn is required: the ARN of the role to assume`);
  let DurationSeconds: number | undefined;
  if (role.duration !== undefined) {
    DurationSeconds = durationSeconds(role.duration);
    if (DurationSeconds === undefined)
      throw new Error(`${path}.duration: ${JSON.stringify(role.duration)} is not a duration such as 1h or 15m`);
  }
  return {
    RoleArn: role.roleArn,
    RoleSessionName: role.sessionName || `cilium-cluster-${Date.now()}`,
    ExternalId: role.externalId,
    DurationSeconds,
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
  const refused = REFUSED.filter((key) => all[`aws:${key}`] !== undefined);
  if (refused.length > 0)
    throw new Error(
      `${refused.map((k) => `aws:${k}`).join(", ")} ${refused.length > 1 ? "are" : "is"} set, which the program's own ` +
        "AWS calls (pulumi up's control-plane member wait) do not honour: they use aws:region, aws:profile and " +
        "aws:assumeRoles. Put the setting in an AWS profile (~/.aws/config, ~/.aws/credentials) and set aws:profile.",
    );
  const region = all["aws:region"];
  if (!region) throw new Error("aws:region is required: the AWS region of the stack");
  const profile = all["aws:profile"] || undefined;
  let roles: AssumeRole[] = [];
  const rolesText = all["aws:assumeRoles"];
  if (rolesText !== undefined) {
    try {
      roles = JSON.parse(rolesText) as AssumeRole[];
    } catch {
      throw new Error(`aws:assumeRoles must be a list of roles ({roleArn, ...}), not ${rolesText}`);
    }
    if (!Array.isArray(roles))
      throw new Error(`aws:assumeRoles must be a list of roles ({roleArn, ...}), not ${rolesText}`);
  }
  const inputs = roles.map((role, i) => assumeRoleInput(role, `aws:assumeRoles[${i}]`));
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

/**
 * What this stack's last update applied, from its own stack outputs, read back through a StackReference to the
 * stack itself (pulumi/pulumi#3722 shows the pattern):
 * - `kubernetesVersion`: the version the control plane runs. The output resolves only once every
 *   control-plane group's member wait has ended (components/cluster.ts), and Pulumi records a stack's outputs only when
 *   an update succeeds, so an interrupted upgrade still reads the version it started from, and the next
 *   `pulumi up` goes on with it;
 * - the IAM path the roles, policies and instance profiles were created at: the path in `controlPlaneRoleArn`;
 * - the VPC's CIDR: `vpcCidr`;
 * - the cluster CA's certificate, which the first control-plane node made: `apiCaCertificate`
 *   (components/controlPlane/clusterCaCertificate.ts), for a preview's Kubernetes provider;
 * - the other settings fixed once deployed (config/validation/fixedOnceDeployed.ts): `fixedSettings`, their
 *   values by config path.
 * A stack not yet deployed has no outputs: nothing applied.
 *
 * Why the stack's own state and not an SSM parameter the program writes and reads with an invoke: it needs no
 * AWS call (a preview reads it with the backend access it always has), nothing outside the stack can change
 * it, it goes with the stack (`pulumi stack export`/`import`, `pulumi destroy`), and a first deployment reads
 * "no outputs" instead of an error to tell apart from a failed call.
 */
import * as pulumi from "@pulumi/pulumi";
import type { AppliedState } from "../config/appliedState";

/** The stack output that records the version. */
export const APPLIED_VERSION_OUTPUT = "kubernetesVersion";
/** The stack output whose ARN holds the IAM path the stack created its roles at. */
export const CONTROL_PLANE_ROLE_OUTPUT = "controlPlaneRoleArn";
/** The stack output that records the VPC's CIDR. */
export const VPC_CIDR_OUTPUT = "vpcCidr";
/** The stack output that records the cluster CA's certificate. */
export const CA_CERTIFICATE_OUTPUT = "apiCaCertificate";
/** The stack output that records the other settings fixed once deployed, by config path. */
export const FIXED_SETTINGS_OUTPUT = "fixedSettings";

/** The fully qualified name of the stack this program runs as (`organization/project/stack`). */
export const ownStackName = (): string => `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;

/**
 * The path of an IAM ARN's entity (`arn:aws:iam::<account>:role/<path>name` → `/<path>`): names hold no `/`,
 * so the path is what lies between the entity type and the last `/`.
 */
export function iamPathOf(arn: string): string | undefined {
  const resource = arn.split(":").slice(5).join(":");
  const slash = resource.indexOf("/");
  return slash < 0 ? undefined : resource.slice(slash, resource.lastIndexOf("/") + 1);
}

/** What the stack's last successful update applied; nothing before its first. */
export async function appliedState(): Promise<AppliedState> {
  const self = new pulumi.StackReference("applied-state", { name: ownStackName() });
  const read = async (name: string) => {
    const details = await self.getOutputDetails(name);
    return details.value ?? details.secretValue;
  };
  const [version, roleArn, cidr, caCertificate] = await Promise.all(
    [APPLIED_VERSION_OUTPUT, CONTROL_PLANE_ROLE_OUTPUT, VPC_CIDR_OUTPUT, CA_CERTIFICATE_OUTPUT].map(async (name) => {
      const value = await read(name);
      return typeof value === "string" ? value : undefined;
    }),
  );
  const fixed = await read(FIXED_SETTINGS_OUTPUT);
  return {
    kubernetesVersion: version,
    iamPath: roleArn === undefined ? undefined : iamPathOf(roleArn),
    networkCidr: cidr,
    caCertificate,
    fixedSettings: fixedSettingsOf(fixed),
  };
}

/** The `fixedSettings` output's string values, by config path; nothing for a stack that has none. */
export function fixedSettingsOf(output: unknown): Record<string, string> | undefined {
  if (typeof output !== "object" || output === null) return undefined;
  return Object.fromEntries(Object.entries(output).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/**
 * The Kubernetes version this stack last applied: its own stack output `kubernetesVersion`, read back through a
 * StackReference to the stack itself (pulumi/pulumi#3722 shows the pattern). The output resolves only once
 * every control-plane group's member wait has ended (program.ts), and Pulumi records a stack's outputs only
 * when an update succeeds, so an interrupted upgrade still reads the version it started from, and the next
 * `pulumi up` goes on with it. A stack not yet deployed has no outputs: undefined.
 *
 * Why the stack's own state and not an SSM parameter the program writes and reads with an invoke: it needs no
 * AWS call (a preview reads it with the backend access it always has), nothing outside the stack can change
 * it, it goes with the stack (`pulumi stack export`/`import`, `pulumi destroy`), and a first deployment reads
 * "no outputs" instead of an error to tell apart from a failed call.
 */
import * as pulumi from "@pulumi/pulumi";

/** The stack output that records the version. */
export const APPLIED_VERSION_OUTPUT = "kubernetesVersion";

/** The fully qualified name of the stack this program runs as (`organization/project/stack`). */
export const ownStackName = (): string => `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;

/** The version the stack's last successful update applied, or undefined before its first. */
export async function appliedKubernetesVersion(): Promise<string | undefined> {
  const self = new pulumi.StackReference("applied-state", { name: ownStackName() });
  const details = await self.getOutputDetails(APPLIED_VERSION_OUTPUT);
  const value = details.value ?? details.secretValue;
  return typeof value === "string" ? value : undefined;
}

/**
 * The cluster CA's certificate, which the program trusts the API by (the member waits, the Kubernetes provider,
 * the `apiCaCertificate` output) and does not make: the first control-plane node's kubeadm init makes the CA,
 * and stores its certificate in SSM (bootstrap/control-plane.sh), so that its key is never in the stack's state.
 * - During `pulumi up`: read from that parameter (ssm:GetParameter, with the stack's AWS config:
 *   components/stackAws.ts) once the first control-plane group is in place, and waited for while its first
 *   node boots, at most `memberReplacementSeconds`.
 * - In a preview: the certificate the last update read (the stack's output: components/appliedStateOutputs.ts), so the
 *   Kubernetes objects still show their diffs; unknown before the first update, as the API's address is.
 */
import type { SSMClient } from "@aws-sdk/client-ssm";
import * as pulumi from "@pulumi/pulumi";
import { Outcome, waitUntil } from "../poll";
import type { StackAws } from "../stackAws";
import { TIMEOUTS } from "../timeouts";

/** Seconds (components/timeouts.ts, `deploy`). */
export interface CaTiming {
  memberReplacementSeconds: number;
  refreshPollSeconds: number;
}

/** The parameter's value, or "wait" while it does not exist; any other failure ends the wait. */
async function storedCertificate(client: SSMClient, name: string, aws: StackAws): Promise<{ value: string } | Outcome> {
  // Loaded only when `pulumi up` calls AWS: a preview never needs the SDK.
  const { GetParameterCommand } = await import("@aws-sdk/client-ssm");
  try {
    const out = await client.send(new GetParameterCommand({ Name: name }));
    const value = out.Parameter?.Value;
    return value ? { value } : { failed: `ssm:GetParameter returned no value for ${name}` };
  } catch (error) {
    if (error instanceof Error && error.name === "ParameterNotFound") return "wait";
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { failed: `ssm:GetParameter ${name} failed with the stack's AWS config (${aws.description}): ${message}` };
  }
}

/** Waits until the parameter `name` exists and returns its value, at most `memberReplacementSeconds`. */
export async function waitForClusterCa(
  name: string,
  aws: StackAws,
  timing: CaTiming = TIMEOUTS.deploy,
  report: (message: string) => void = () => undefined,
): Promise<string> {
  const { SSMClient } = await import("@aws-sdk/client-ssm");
  const client = new SSMClient({ region: aws.region, profile: aws.profile, credentials: aws.credentials });
  let certificate = "";
  let reported = false;
  try {
    await waitUntil(
      `the cluster's CA certificate in ${name}`,
      async () => {
        const answer = await storedCertificate(client, name, aws);
        if (typeof answer === "object" && "value" in answer) {
          certificate = answer.value;
          return "done";
        }
        if (answer === "wait" && !reported) {
          reported = true;
          report(
            `waiting for the first control-plane node to store the cluster's CA certificate in ${name} ` +
              `(at most ${timing.memberReplacementSeconds}s)`,
          );
        }
        return answer;
      },
      {
        timeoutMs: timing.memberReplacementSeconds * 1000,
        intervalMs: timing.refreshPollSeconds * 1000,
        timedOut: () =>
          `not stored after ${timing.memberReplacementSeconds}s: the first control-plane node did not create ` +
          "the cluster; read its console output (docs/operations.md)",
      },
    );
  } finally {
    client.destroy();
  }
  return certificate;
}

/** The CA certificate, as the module's header says; `firstGroup` is the first control-plane group. */
export function clusterCaCertificate(
  parameter: pulumi.Output<string>,
  firstGroup: { groupInPlace: pulumi.Output<string> } & pulumi.Resource,
  applied: string | undefined,
  aws: StackAws,
  timing?: CaTiming,
): pulumi.Output<string> {
  if (pulumi.runtime.isDryRun()) return pulumi.output(applied ?? (pulumi.unknown as unknown as string));
  return pulumi.all([parameter, firstGroup.groupInPlace]).apply(async ([name]) => {
    try {
      return await waitForClusterCa(name, aws, timing, (message) =>
        pulumi.log.info(message, firstGroup, undefined, true),
      );
    } catch (error) {
      // Shown on the group, without a stack trace: the message says what was waited for and what to do.
      throw new pulumi.ResourceError(error instanceof Error ? error.message : String(error), firstGroup, true);
    }
  });
}

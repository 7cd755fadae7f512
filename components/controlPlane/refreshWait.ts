/**
 * One control-plane member at a time. After each control-plane group is created or changed, `pulumi up`
 * waits until the group's newest instance refresh has succeeded (DescribeInstanceRefreshes, with the stack's
 * AWS config: components/stackAws.ts) and, when this machine applies the add-ons, the API answers `/readyz`
 * (components/k8s/apiReady.ts); the next control-plane group, and the stack's outputs, wait for it.
 * What `Successful` means: a refresh counts an instance only once it is InService, which it is only once its
 * launch hook is completed, and a control-plane node completes it only after `kubeadm join` returned, which
 * it does once etcd is healthy with the new member promoted (bootstrap/kubeadm.sh). This machine cannot reach
 * etcd; the new node judges it, and a refresh that succeeded had etcd healthy with the new member.
 * A group with no refresh yet (a new group) has nothing to wait for here. The wait runs on every `pulumi up`
 * (components/deployWait.ts), so a refresh still in progress after an interrupted update is waited for too.
 * A failed refresh, the API out of this machine's reach, or the deadline (components/timeouts.ts) stops
 * `pulumi up` with an error that names the group.
 * Deletions run in the reverse order, so scaling the control plane down removes one member at a time.
 */
import type { AutoScalingClient } from "@aws-sdk/client-auto-scaling";
import * as pulumi from "@pulumi/pulumi";
import { waitDuringUpdate } from "../deployWait";
import { Outcome, waitUntil } from "../poll";
import { ApiTarget, ApiTiming, waitForApi } from "../k8s/apiReady";
import type { StackAws } from "../stackAws";
import { TIMEOUTS } from "../timeouts";

/** Instance refresh statuses (Auto Scaling API `InstanceRefreshStatus`). */
const IN_PROGRESS = ["Pending", "InProgress", "Cancelling", "RollbackInProgress", "Baking"];
const FAILED = ["Failed", "Cancelled", "RollbackSuccessful", "RollbackFailed"];

export interface RefreshSummary {
  Status?: string;
  StatusReason?: string;
  StartTime?: Date | string;
}

/** What the newest of a group's instance refreshes means for the wait. No refresh at all: nothing to wait for. */
export function refreshOutcome(refreshes: RefreshSummary[]): Outcome {
  const time = (r: RefreshSummary) => (r.StartTime === undefined ? 0 : new Date(r.StartTime).getTime());
  const newest = [...refreshes].sort((a, b) => time(b) - time(a))[0];
  if (!newest || newest.Status === "Successful") return "done";
  if (FAILED.includes(newest.Status ?? ""))
    return { failed: `${newest.Status}: ${newest.StatusReason ?? "no reason given"}` };
  if (IN_PROGRESS.includes(newest.Status ?? "")) return "wait";
  return { failed: `unknown instance refresh status ${newest.Status}` };
}

/** Seconds (components/timeouts.ts, `deploy`). */
export interface MemberTiming extends ApiTiming {
  memberReplacementSeconds: number;
  refreshPollSeconds: number;
}

/** The newest instance refresh of `groupName`, as Auto Scaling reports it; a failed call is a failure. */
async function refreshOf(client: AutoScalingClient, groupName: string, aws: StackAws): Promise<Outcome> {
  // Loaded only when `pulumi up` calls AWS: a preview never needs the SDK.
  const { DescribeInstanceRefreshesCommand } = await import("@aws-sdk/client-auto-scaling");
  try {
    const out = await client.send(
      new DescribeInstanceRefreshesCommand({ AutoScalingGroupName: groupName, MaxRecords: 5 }),
    );
    return refreshOutcome(out.InstanceRefreshes ?? []);
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return {
      failed: `autoscaling:DescribeInstanceRefreshes failed with the stack's AWS config (${aws.description}): ${message}`,
    };
  }
}

/**
 * Waits until the newest instance refresh of `groupName` has succeeded and then, with `api`, until the API
 * answers: at most `memberReplacementSeconds` in all. `report` hears once of each part that has to wait.
 */
export async function waitForMember(
  groupName: string,
  api: ApiTarget | undefined,
  aws: StackAws,
  timing: MemberTiming = TIMEOUTS.deploy,
  report: (message: string) => void = () => undefined,
): Promise<void> {
  const { AutoScalingClient } = await import("@aws-sdk/client-auto-scaling");
  const client = new AutoScalingClient({ region: aws.region, profile: aws.profile, credentials: aws.credentials });
  const deadline = Date.now() + timing.memberReplacementSeconds * 1000;
  let reported = false;
  const check = async () => {
    const outcome = await refreshOf(client, groupName, aws);
    if (outcome === "wait" && !reported) {
      reported = true;
      report(
        `waiting for the instance refresh of ${groupName} to succeed (at most ${timing.memberReplacementSeconds}s)`,
      );
    }
    return outcome;
  };
  try {
    await waitUntil(`the instance refresh of ${groupName}`, check, {
      timeoutMs: timing.memberReplacementSeconds * 1000,
      intervalMs: timing.refreshPollSeconds * 1000,
    });
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}. The next control-plane group waits until a ` +
        `refresh of this one succeeds: aws autoscaling describe-instance-refreshes --auto-scaling-group-name ` +
        `${groupName} (docs/operations.md, "Replacing a control-plane node")`,
      { cause: error },
    );
  } finally {
    client.destroy();
  }
  if (api) {
    const remaining = Math.max(Math.round((deadline - Date.now()) / 1000), 0);
    await waitForApi(`the API after ${groupName}`, api, remaining, timing, report);
  }
}

/**
 * `group`'s Auto Scaling group name, once its member is replaced: during `pulumi up`, after the group and its
 * lifecycle hooks are in place, `waitForMember`. Give the next group, and the stack's outputs, this output.
 */
export function controlPlaneMemberReplaced(
  group: { groupInPlace: pulumi.Output<string> } & pulumi.Resource,
  api: pulumi.Input<ApiTarget> | undefined,
  aws: StackAws,
  timing?: MemberTiming,
): pulumi.Output<string> {
  return waitDuringUpdate(pulumi.all([group.groupInPlace, api]), group, ([groupName, target], report) =>
    waitForMember(groupName, target, aws, timing, report),
  ).apply(([groupName]) => groupName);
}

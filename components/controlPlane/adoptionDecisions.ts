/**
 * What ExistingClusterAdoption decides from what AWS tells it: whether a running cluster must be adopted
 * (snapshotted and given its init record) before the control-plane groups change, whether a node is ready
 * for Run Command, and what a command's status means. Pure; the AWS calls are in existingClusterAdoption.ts.
 */
import type { Outcome } from "./refreshWait";

export type AdoptionPlan = { adopt: false; reason: string } | { adopt: true; candidates: string[] };

/**
 * `record` is the init record's value (undefined: ParameterNotFound); `running` the running control-plane
 * instances of the cluster. A record means the cluster already says it exists; no instance means there is
 * no cluster yet. Otherwise a cluster runs without a record: snapshot it on one of its nodes, the first by id
 * that Run Command can reach (`firstManaged`).
 */
export function adoptionPlan(record: string | undefined, running: string[]): AdoptionPlan {
  if (record !== undefined) return { adopt: false, reason: `the init record exists (${record})` };
  if (running.length === 0) return { adopt: false, reason: "no control-plane instance runs: a new cluster" };
  return { adopt: true, candidates: [...running].sort() };
}

/** The init record's value when adoption (or an operator, by hand) created it: `adopted <time>`. */
export function wasAdopted(record: string | undefined): boolean {
  return record?.startsWith("adopted ") ?? false;
}

/**
 * Whether what adoption said when it was created (its `adoption` output) means the record is an adoption
 * record: it adopted the cluster, or found the record an operator created by hand.
 */
export function adoptedBefore(said: string): boolean {
  return said.startsWith("adopted ") || said.includes("the init record exists (adopted ");
}

/** The running control-plane instances no etcd member volume is attached to (etcd on their root disks). */
export function oldGeneration(running: string[], attached: string[]): string[] {
  return running.filter((id) => !attached.includes(id)).sort();
}

/** The first of `candidates` that is SSM-managed and online (DescribeInstanceInformation's PingStatus). */
export function firstManaged(
  list: { InstanceId?: string; PingStatus?: string }[],
  candidates: string[],
): string | undefined {
  return candidates.find((id) => list.some((i) => i.InstanceId === id && i.PingStatus === "Online"));
}

/** Run Command invocation statuses (GetCommandInvocation's `Status`). */
const COMMAND_RUNNING = ["Pending", "InProgress", "Delayed", "Cancelling"];
const COMMAND_FAILED = ["Failed", "TimedOut", "Cancelled"];

export interface Invocation {
  Status?: string;
  StatusDetails?: string;
  StandardErrorContent?: string;
}

export function commandOutcome(invocation: Invocation): Outcome {
  const status = invocation.Status ?? "";
  if (status === "Success") return "done";
  if (COMMAND_RUNNING.includes(status)) return "wait";
  const why = (invocation.StandardErrorContent ?? "").trim().split("\n").slice(-3).join(" / ");
  if (COMMAND_FAILED.includes(status))
    return { failed: `the snapshot command ${status} (${invocation.StatusDetails ?? status})${why ? `: ${why}` : ""}` };
  return { failed: `unknown command status ${status || "(none)"}` };
}

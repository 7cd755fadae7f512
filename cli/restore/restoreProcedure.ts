/**
 * The restore of a chosen etcd snapshot, as the steps the control plane's own restore needs: every
 * control-plane instance goes through Auto Scaling (each node drains and its member leaves in its termination
 * hook, the last saving a final snapshot), one at a time so each leave keeps quorum; once none is left, a
 * restore request names the snapshot; then the groups get their sizes back, and the first zone's new node,
 * finding every member lost, takes the init record over and restores the requested snapshot instead of the
 * latest, deleting the request once the cluster runs on it (bootstrap/control-plane.sh), which is what the
 * restore waits for. Nothing here touches etcd, a node or a snapshot: the control plane stays the only reader
 * of its data and writer of its bucket. A run that stopped goes on when run again: before the request is
 * written each step reads the groups first; once it is written, a run for the same snapshot only gives the
 * sizes back and waits.
 */
import { CONTROL_PLANE_GROUP_SIZE } from "../../components/nodes/instanceGroups";
import { waitUntil } from "../../components/poll";
import { TIMEOUTS } from "../../components/timeouts";

/** A control-plane group as the procedure reads it: its sizes and its instances' lifecycle states. */
export interface ControlPlaneGroup {
  name: string;
  minSize: number;
  desiredCapacity: number;
  /** Instance id → Auto Scaling lifecycle state (`InService`, `Terminating:Wait`, ...). */
  instances: Record<string, string>;
}

/** The calls the procedure makes (controlPlaneAws.ts makes them with the AWS SDK). */
export interface RestoreAws {
  /** The snapshot object's size and time, or undefined when the bucket has no such key. */
  snapshot(bucket: string, key: string): Promise<{ bytes: number; modified?: Date } | undefined>;
  /** The cluster's control-plane Auto Scaling groups (its cluster and control-plane role tags). */
  controlPlaneGroups(clusterName: string): Promise<ControlPlaneGroup[]>;
  setSizes(group: string, sizes: { minSize: number; desiredCapacity?: number }): Promise<void>;
  /** TerminateInstanceInAutoScalingGroup, the group's desired capacity one down. */
  terminate(instanceId: string): Promise<void>;
  /** The restore request's value, or undefined when there is none. */
  request(name: string): Promise<string | undefined>;
  /** The restore request: a String parameter, overwritten. */
  putRequest(name: string, key: string): Promise<void>;
}

export interface RestoreTarget {
  clusterName: string;
  bucket: string;
  key: string;
  /** The restore request's parameter name (the stack output `restoreRequest`). */
  request: string;
}

export interface Timing {
  instanceGoneMs: number;
  restoredMs: number;
  pollMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_TIMING: Timing = {
  instanceGoneMs: TIMEOUTS.restoreSnapshot.instanceGoneSeconds * 1000,
  // A bootstrap run's window: a node that fails in it is abandoned, and the next restores the same snapshot.
  restoredMs: TIMEOUTS.nodes.bootstrapRunMinutes * 60_000,
  pollMs: TIMEOUTS.restoreSnapshot.pollSeconds * 1000,
};

/** Refused before anything changes: the message is the product. */
export class RestoreError extends Error {}

const going = (state: string) => state.startsWith("Terminating") || state === "Terminated";

/** What the restore finds before it changes anything: the snapshot, the groups, a request already written. */
export async function inspect(aws: RestoreAws, target: RestoreTarget) {
  const snapshot = await aws.snapshot(target.bucket, target.key);
  if (!snapshot)
    throw new RestoreError(
      `s3://${target.bucket}/${target.key} does not exist; the snapshots there: aws s3 ls s3://${target.bucket}/etcd/`,
    );
  if (snapshot.bytes === 0) throw new RestoreError(`s3://${target.bucket}/${target.key} is empty: not a snapshot`);
  const groups = await aws.controlPlaneGroups(target.clusterName);
  if (groups.length === 0)
    throw new RestoreError(`the cluster ${target.clusterName} has no control-plane Auto Scaling group`);
  return { snapshot, groups, pending: await aws.request(target.request) };
}

/** Runs every step; `say` tells the person each one. */
export async function restore(
  aws: RestoreAws,
  target: RestoreTarget,
  say: (line: string) => void,
  timing: Timing = DEFAULT_TIMING,
): Promise<void> {
  const wait = (what: string, timeoutMs: number, check: () => Promise<boolean>) =>
    waitUntil(what, async () => ((await check()) ? "done" : "wait"), {
      timeoutMs,
      intervalMs: timing.pollMs,
      now: timing.now,
      sleep: timing.sleep,
    });
  let groups = await aws.controlPlaneGroups(target.clusterName);
  if ((await aws.request(target.request)) === target.key) {
    say(`${target.request} names ${target.key} already: the control plane was emptied for it`);
  } else {
    // Auto Scaling launches no replacement for an instance that goes while the minimum allows none.
    for (const group of groups)
      if (group.minSize !== 0) {
        await aws.setSizes(group.name, { minSize: 0 });
        say(`${group.name}: minimum size 0`);
      }
    for (;;) {
      groups = await aws.controlPlaneGroups(target.clusterName);
      const left = groups.flatMap((g) => Object.entries(g.instances));
      if (left.length === 0) break;
      const [id, state] = left.find(([, s]) => going(s)) ?? left[0];
      if (!going(state)) {
        await aws.terminate(id);
        say(`${id}: terminating (its node drains and its etcd member leaves; the last one saves a final snapshot)`);
      }
      await wait(`${id} to go`, timing.instanceGoneMs, async () =>
        (await aws.controlPlaneGroups(target.clusterName)).every((g) => !(id in g.instances)),
      );
      say(`${id}: gone`);
    }
    // Only once no member is left: a request written before, by a run that then stopped, would wait for any
    // later loss of every member, and that would restore this snapshot.
    await aws.putRequest(target.request, target.key);
    say(`${target.request}: ${target.key}`);
  }
  for (const group of groups) {
    const { minSize, desiredCapacity } = CONTROL_PLANE_GROUP_SIZE;
    await aws.setSizes(group.name, { minSize, desiredCapacity });
    say(`${group.name}: minimum size ${minSize}, desired ${desiredCapacity}`);
  }
  say(`waiting for the first zone's new node to restore ${target.key} and run the cluster on it`);
  await wait(
    `the restore of ${target.key} (${target.request} deleted by the node that restored it)`,
    timing.restoredMs,
    async () => (await aws.request(target.request)) === undefined,
  );
}

/**
 * The launch lifecycle hook of every instance group: a new instance waits in `Pending:Wait` until its
 * bootstrap has joined the cluster and completes the hook (bootstrap/launch-hook.sh); one that never gets
 * that far is abandoned, and so terminated, by Auto Scaling when the join deadline passes (components/timeouts.ts). An instance is
 * `InService` only once it has joined, which is what an instance refresh waits for.
 */
import type { InstanceGroup } from "./instanceGroups";
import type { LifecycleHookSpec } from "./lifecycleHooks";
import { TIMEOUTS } from "../timeouts";

/** The hook's name, the same in every group (a hook's name is unique within its group only). */
export const LAUNCH_HOOK_NAME = "cilium-cluster-joined";

export function launchLifecycleHook(role: InstanceGroup["role"]): LifecycleHookSpec {
  return {
    name: LAUNCH_HOOK_NAME,
    lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING",
    defaultResult: "ABANDON",
    heartbeatTimeout: TIMEOUTS.nodes.joinDeadlineSeconds[role],
  };
}

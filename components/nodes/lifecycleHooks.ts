/**
 * An instance group's lifecycle hooks, declared twice on purpose:
 *
 * - in the group's `initialLifecycleHooks`, so a new group launches its first instances with them: the
 *   provider creates such a group at size 0, puts those hooks, then sets its size (`group.go`, two phases),
 *   whereas a LifecycleHook resource is created only after the group, when its first instances are launching;
 * - as `LifecycleHook` resources, one per hook, which carry every later change of a hook:
 *   `initialLifecycleHooks` is ForceNew and never read back from AWS (`group.go`), so the group ignores
 *   changes to it (nodeLaunchTemplate.ts), and PutLifecycleHook updates the hook of that name in place
 *   (terraform-provider-aws `lifecycle_hook.go`). `pulumi preview` shows them.
 *
 * Both together cause no perpetual diff: the state keeps what was given at creation, and the resource reads
 * its hook back by name. The resources go with their group (`deletedWith`): deleting the group drains its
 * instances first, and the etcd hook must still hold them then (docs/operations.md, scaling down).
 */
import type { Group as AutoscalingGroup } from "@pulumi/aws/autoscaling/group";
import { LifecycleHook } from "@pulumi/aws/autoscaling/lifecycleHook";
import type * as awsInput from "@pulumi/aws/types/input";
import type * as pulumi from "@pulumi/pulumi";
import { TIMEOUTS } from "../timeouts";
import type { InstanceGroup } from "./instanceGroups";

/**
 * The drain hook of every group: Auto Scaling holds a terminating instance (instance refresh, scale-in, the
 * group's deletion) until aws-node-termination-handler has cordoned and drained its node, respecting
 * PodDisruptionBudgets, and completed the action, or the heartbeat timeout runs out and Auto Scaling goes on
 * (components/drain). Auto Scaling sends the action to EventBridge, whose rule takes only this hook's
 * actions to the handler's queue: the handler completes every action it receives.
 */
export const DRAIN_LIFECYCLE_HOOK = "nth-drain";

/** A hook as the group declares it, without the group: the input of both ways of declaring it. */
export type LifecycleHookSpec = awsInput.autoscaling.GroupInitialLifecycleHook & { name: string };

/**
 * The launch hook of every group: a new instance waits in `Pending:Wait` until its bootstrap has joined the
 * cluster and completes the hook (bootstrap/launch-hook.sh); one that never gets that far is abandoned, and
 * so terminated, by Auto Scaling when the join deadline passes (components/timeouts.ts). An instance is
 * `InService` only once it has joined, which is what an instance refresh waits for. Its name is the same in
 * every group (a hook's name is unique within its group only).
 */
export const LAUNCH_HOOK_NAME = "cilium-cluster-joined";

/**
 * The termination hook of control-plane groups: Auto Scaling holds a terminating control-plane instance in
 * `Terminating:Wait` until its etcd member has left (the etcd-leave service, bootstrap/control-plane.sh) and
 * the node completes the action, or the heartbeat timeout runs out and Auto Scaling goes on. The member
 * leaves once the node is drained (the drain hook's work).
 */
export const ETCD_LIFECYCLE_HOOK = "etcd-member";

function launchLifecycleHook(role: InstanceGroup["role"]): LifecycleHookSpec {
  return {
    name: LAUNCH_HOOK_NAME,
    lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING",
    defaultResult: "ABANDON",
    heartbeatTimeout: TIMEOUTS.nodes.joinDeadlineSeconds[role],
  };
}

const drainLifecycleHook: LifecycleHookSpec = {
  name: DRAIN_LIFECYCLE_HOOK,
  lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
  heartbeatTimeout: TIMEOUTS.drain.hookHeartbeatSeconds,
  defaultResult: "CONTINUE",
};

function etcdLifecycleHooks(group: Pick<InstanceGroup, "role">): LifecycleHookSpec[] {
  if (group.role !== "control-plane") return [];
  return [
    {
      name: ETCD_LIFECYCLE_HOOK,
      lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
      heartbeatTimeout: TIMEOUTS.etcd.leaveHeartbeatSeconds,
      defaultResult: "CONTINUE",
    },
  ];
}

/** The hooks of a group: the launch hook, the drain hook, then (control plane) the etcd termination hook. Pure. */
export function groupLifecycleHooks(group: Pick<InstanceGroup, "role">): LifecycleHookSpec[] {
  return [launchLifecycleHook(group.role), drainLifecycleHook, ...etcdLifecycleHooks(group)];
}

/** One LifecycleHook resource per hook of the group, named `<group>-<hook name>` (stable: both are fixed). */
export function declareLifecycleHooks(
  name: string,
  group: InstanceGroup,
  asg: AutoscalingGroup,
  parent: pulumi.Resource,
): LifecycleHook[] {
  return groupLifecycleHooks(group).map(
    (hook) =>
      new LifecycleHook(
        `${name}-${hook.name}`,
        { autoscalingGroupName: asg.name, ...hook },
        { parent, deletedWith: asg },
      ),
  );
}

/**
 * An instance group's lifecycle hooks (the launch hook of every group, launchHook.ts; the etcd termination
 * hook of control-plane groups, etcdLifecycleHook.ts), declared twice on purpose:
 *
 * - as `autoscaling.LifecycleHook` resources, one per hook, so `pulumi up` puts them on groups that exist
 *   already (a stack created before the hooks) and `pulumi preview` shows them. PutLifecycleHook creates or
 *   updates the hook of that name (terraform-provider-aws `lifecycle_hook.go` uses it for both), so a hook
 *   that is there already is updated in place, never duplicated;
 * - in the group's `initialLifecycleHooks`, so a group created new (no earlier state of that resource)
 *   launches its first instances with them: the provider creates such a group at size 0, puts those hooks,
 *   then sets its size (`group.go`, two phases), whereas a LifecycleHook resource is created only after the
 *   group, when its first instances are launching. Not a group REPLACED: Pulumi applies the group's
 *   ignoreChanges to the replacement's create too (the engine resets an ignored key to its old-state value,
 *   PropertyPath.Reset, and deletes it when the old state lacks it), so a replacement gets the initial hooks
 *   the old state holds: none on a stack created before the hooks. Its first instances then launch without
 *   them (no launch hook: in service before they join; no etcd hook) until the LifecycleHook resources are
 *   put on the new group, and the hooks hold only instances launching or terminating after that.
 *
 * `initialLifecycleHooks` is ForceNew and never read back from AWS (`group.go`: every field of
 * `initial_lifecycle_hook` is ForceNew and `resourceGroupRead` does not set it): a group whose state holds
 * other hooks, or none (created by an earlier version), would be replaced for them. The group therefore
 * ignores changes to it (nodeLaunchTemplate.ts); the LifecycleHook resources carry every later change.
 * Both together cause no perpetual diff: the state keeps what was given at creation, and the resource reads
 * its hook back by name. The resources go with their group (`deletedWith`): deleting the group drains its
 * instances first, and the etcd hook must still hold them then (docs/operations.md, scaling down).
 */
import * as autoscaling from "@pulumi/aws/autoscaling";
import type * as awsInput from "@pulumi/aws/types/input";
import type * as pulumi from "@pulumi/pulumi";
import { etcdLifecycleHooks } from "./etcdLifecycleHook";
import type { InstanceGroup } from "./instanceGroups";
import { launchLifecycleHook } from "./launchHook";

/** A hook as the group declares it, without the group: the input of both ways of declaring it. */
export type LifecycleHookSpec = awsInput.autoscaling.GroupInitialLifecycleHook & { name: string };

/** The hooks of a group: the launch hook, then (control plane) the etcd termination hook. Pure. */
export function groupLifecycleHooks(group: InstanceGroup): LifecycleHookSpec[] {
  return [launchLifecycleHook(group.role), ...etcdLifecycleHooks(group)];
}

/** One LifecycleHook resource per hook of the group, named `<group>-<hook name>` (stable: both are fixed). */
export function declareLifecycleHooks(
  name: string,
  group: InstanceGroup,
  asg: autoscaling.Group,
  parent: pulumi.Resource,
): autoscaling.LifecycleHook[] {
  return groupLifecycleHooks(group).map(
    (hook) =>
      new autoscaling.LifecycleHook(
        `${name}-${hook.name}`,
        { autoscalingGroupName: asg.name, ...hook },
        { parent, deletedWith: asg },
      ),
  );
}

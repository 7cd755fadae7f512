/**
 * The termination lifecycle hook of control-plane groups: Auto Scaling holds a terminating control-plane
 * instance in Terminating:Wait until its etcd member has left (the etcd-leave service runs kubeadm's
 * remove-etcd-member phase, bootstrap/control-plane.sh) and the node completes the action, or the
 * heartbeat timeout runs out and Auto Scaling goes on.
 */
import { TIMEOUTS } from "../timeouts";
import { ETCD_LIFECYCLE_HOOK } from "./controlPlaneState";
import type { InstanceGroup } from "./instanceGroups";
import type { LifecycleHookSpec } from "./lifecycleHooks";

export function etcdLifecycleHooks(group: InstanceGroup): LifecycleHookSpec[] {
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

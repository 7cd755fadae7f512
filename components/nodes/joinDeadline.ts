/**
 * How long a new node has to join the cluster: the heartbeat timeout of its group's launch lifecycle hook
 * (launchHook.ts), after which Auto Scaling abandons and terminates an instance that has not completed it.
 */
import type { InstanceGroup } from "./instanceGroups";

/** Minutes from launch: packages, images and kubeadm take about 5 on a worker, `kubeadm init` about 8. */
export const JOIN_DEADLINE_MINUTES: Record<InstanceGroup["role"], number> = { "control-plane": 20, node: 15 };

/**
 * The instance refresh's warmup: how long after a new instance is `InService` (which it is only once it has
 * joined) the refresh waits before it counts the instance healthy and replaces more: the kubelet and the
 * Cilium agent starting on the joined node.
 */
export const INSTANCE_WARMUP_SECONDS = 120;

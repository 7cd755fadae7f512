/**
 * How long a new node has to join the cluster before it reports itself unhealthy to its Auto Scaling group
 * (bootstrap/health.sh), and how long an instance refresh waits on a new instance before it goes on: longer
 * than the deadline, so a change that breaks the bootstrap stops the refresh at its first instances instead
 * of replacing every good node with a broken one.
 */
import type { InstanceGroup } from "./instanceGroups";

/** Minutes from boot: packages, images and kubeadm take about 5 on a worker, `kubeadm init` about 8. */
export const JOIN_DEADLINE_MINUTES: Record<InstanceGroup["role"], number> = { "control-plane": 20, node: 15 };

/** The instance refresh's warmup: the join deadline and two minutes for the report to reach Auto Scaling. */
export function instanceWarmupSeconds(role: InstanceGroup["role"]): number {
  return (JOIN_DEADLINE_MINUTES[role] + 2) * 60;
}

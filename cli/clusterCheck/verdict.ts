/**
 * The cluster check's verdict, from what it read: healthy when nothing fails. The API server must answer,
 * belong to the stack's cluster (kubeadm's ClusterConfiguration names it) and pass its readiness checks,
 * etcd's among them; then the nodes, the pods and, in ENI mode, the nodes' pod addresses. Pure.
 */
import type { AwsGroups, ClusterState } from "./clusterState";
import { EniRow, judgeEni } from "./eniVerdict";
import type { Expectations } from "./expectations";
import type { Failure } from "./failure";
import { GroupRow, judgeNodes, NodeRow } from "./nodeVerdict";
import { judgePods } from "./podVerdict";

export interface Verdict {
  healthy: boolean;
  failures: Failure[];
  groups: GroupRow[];
  nodes: NodeRow[];
  /** ENI mode only. */
  eni?: EniRow[];
}

const verdictOf = (failures: Failure[], rest: Omit<Verdict, "healthy" | "failures">): Verdict => ({
  healthy: failures.length === 0,
  failures,
  ...rest,
});

export function judge(expected: Expectations, cluster: ClusterState, aws: AwsGroups): Verdict {
  if (!cluster.reachable)
    return verdictOf([{ kind: "API", name: cluster.server, message: `could not read the cluster: ${cluster.error}` }], {
      groups: [],
      nodes: [],
    });
  const failures: Failure[] = [];
  if (cluster.kubeadmClusterName !== expected.clusterName)
    failures.push({
      kind: "Cluster",
      name: expected.clusterName,
      message:
        cluster.kubeadmClusterName === undefined
          ? "the API server has no kubeadm ClusterConfiguration (kube-system/kubeadm-config): not a cluster of this program"
          : `the API server is cluster "${cluster.kubeadmClusterName}" (kube-system/kubeadm-config), not the stack's: check --kubeconfig`,
    });
  for (const check of cluster.readyz.filter((c) => !c.ok))
    failures.push({ kind: "APIServer", name: check.name, message: `readiness check ${check.name} failed` });
  const nodes = judgeNodes(expected.groups, cluster.nodes, aws);
  failures.push(...nodes.failures);
  failures.push(...judgePods(expected.workloads, cluster.nodes, cluster.pods, cluster));
  const eni = expected.eni ? judgeEni(cluster.nodes, cluster.ciliumNodes ?? []) : undefined;
  failures.push(...(eni?.failures ?? []));
  return verdictOf(failures, { groups: nodes.groups, nodes: nodes.nodes, eni: eni?.rows });
}

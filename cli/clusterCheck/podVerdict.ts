/**
 * The cluster's pods: kubeadm's static pods (etcd, API server, controller manager, scheduler) on every
 * control-plane node, the add-ons' DaemonSets and Deployments (Cilium's agents and operator, the cloud
 * controller manager, the EBS CSI driver) present and ready, and, as kOps checks, every other pod of a
 * system-critical priority class ready. Pure.
 */
import type { V1DaemonSet, V1Deployment, V1Node, V1Pod } from "@kubernetes/client-node";
import { CONTROL_PLANE_COMPONENTS, ExpectedWorkload } from "./expectations";
import type { Failure } from "./failure";
import { nodeName, roleOf } from "./nodeVerdict";

const CRITICAL = ["system-cluster-critical", "system-node-critical"];
/** Where kubeadm's static pods (their mirror pods) are. */
const STATIC_POD_NAMESPACE = "kube-system";

const podKey = (pod: V1Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;

/** What is wrong with a pod that should be running, kOps's wording; undefined when it is ready. */
export function podProblem(pod: V1Pod): string | undefined {
  const phase = pod.status?.phase;
  if (phase === "Pending") return "is pending";
  if (phase === "Failed") return "has failed";
  if (phase === "Unknown") return "is in an unknown phase";
  const notReady = (pod.status?.containerStatuses ?? []).filter((c) => !c.ready).map((c) => c.name);
  if (notReady.length > 0) return `is not ready (${notReady.join(",")})`;
  const ready = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  return ready ? undefined : "is not ready";
}

/** Each component's static pod on each control-plane node: there, and ready. Returns the pods it judged. */
function staticPods(nodes: V1Node[], pods: V1Pod[]): { failures: Failure[]; judged: Set<string> } {
  const failures: Failure[] = [];
  const judged = new Set<string>();
  for (const node of nodes.filter((n) => roleOf(n) === "control-plane")) {
    const name = nodeName(node);
    for (const component of CONTROL_PLANE_COMPONENTS) {
      const pod = pods.find(
        (p) =>
          p.metadata?.namespace === STATIC_POD_NAMESPACE &&
          p.metadata.labels?.component === component &&
          p.spec?.nodeName === name,
      );
      if (!pod) {
        failures.push({ kind: "Node", name, message: `control-plane node "${name}" has no ${component} pod` });
        continue;
      }
      judged.add(podKey(pod));
      const problem = podProblem(pod);
      if (problem) failures.push({ kind: "Pod", name: podKey(pod), message: `${component} on "${name}" ${problem}` });
    }
  }
  return { failures, judged };
}

function daemonSetProblems(ds: V1DaemonSet): string[] {
  const desired = ds.status?.desiredNumberScheduled ?? 0;
  const ready = ds.status?.numberReady ?? 0;
  const updated = ds.status?.updatedNumberScheduled ?? 0;
  if (desired === 0) return ["schedules no pod: no node matches it"];
  return [
    ...(ready < desired ? [`${ready} of ${desired} pods ready`] : []),
    ...(updated < desired ? [`${updated} of ${desired} pods updated`] : []),
  ];
}

function deploymentProblems(deployment: V1Deployment): string[] {
  const wanted = deployment.spec?.replicas ?? 1;
  const ready = deployment.status?.readyReplicas ?? 0;
  const updated = deployment.status?.updatedReplicas ?? 0;
  return [
    ...(ready < wanted ? [`${ready} of ${wanted} replicas ready`] : []),
    ...(updated < wanted ? [`${updated} of ${wanted} replicas updated`] : []),
  ];
}

type Workload = V1DaemonSet | V1Deployment;

function workloadFailure(expected: ExpectedWorkload, found: Workload | undefined): Failure[] {
  const name = `${expected.namespace}/${expected.name}`;
  const failure = (message: string): Failure[] => [{ kind: expected.kind, name, message }];
  if (!found) return failure(`not found (the ${expected.addon} add-on declares it)`);
  const seen = (found.status?.observedGeneration ?? 0) >= (found.metadata?.generation ?? 0);
  const problems = [
    ...(seen ? [] : ["its controller has not yet acted on its latest change"]),
    ...(expected.kind === "DaemonSet"
      ? daemonSetProblems(found as V1DaemonSet)
      : deploymentProblems(found as V1Deployment)),
  ];
  return problems.length > 0 ? failure(problems.join("; ")) : [];
}

export interface Workloads {
  daemonSets: V1DaemonSet[];
  deployments: V1Deployment[];
}

export function judgePods(
  expected: ExpectedWorkload[],
  nodes: V1Node[],
  pods: V1Pod[],
  workloads: Workloads,
): Failure[] {
  const { failures, judged } = staticPods(nodes, pods);
  const find = (e: ExpectedWorkload): Workload | undefined =>
    (e.kind === "DaemonSet" ? workloads.daemonSets : workloads.deployments).find(
      (w) => w.metadata?.namespace === e.namespace && w.metadata?.name === e.name,
    );
  const critical = pods.flatMap((pod): Failure[] => {
    const priority = pod.spec?.priorityClassName ?? "";
    // A pod being deleted (a rollout replacing it) is on its way out, not a failure.
    const leaving = pod.metadata?.deletionTimestamp !== undefined || pod.status?.phase === "Succeeded";
    if (!CRITICAL.includes(priority) || judged.has(podKey(pod)) || leaving) return [];
    const problem = podProblem(pod);
    return problem
      ? [{ kind: "Pod", name: podKey(pod), message: `${priority} pod "${pod.metadata?.name}" ${problem}` }]
      : [];
  });
  return [...failures, ...expected.flatMap((e) => workloadFailure(e, find(e))), ...critical];
}

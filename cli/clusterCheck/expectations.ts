/**
 * What a healthy cluster of a spec has, from what the program declares: its instance groups and their Auto
 * Scaling groups, kubeadm's control-plane static pods on every control-plane node, the add-ons' DaemonSets
 * and Deployments (read from the add-ons' own renderers, so a new workload is expected without a second
 * list), and in ENI mode a CiliumNode per node. Pure.
 */
import type { ClusterSpec } from "../../config/types";
import { ADDONS } from "../../components/features";
import type { StagedObjects } from "../../components/k8s/stages";
import { InstanceGroup, instanceGroups } from "../../components/nodes/instanceGroups";
import { eniMode } from "../../config/eniMode";

/** kubeadm's static pods on each control-plane node, each labelled `component: <name>` (kubeadm's manifests). */
export const CONTROL_PLANE_COMPONENTS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"];

export interface ExpectedWorkload {
  kind: "DaemonSet" | "Deployment";
  namespace: string;
  name: string;
  /** The add-on that declares it, for the report. */
  addon: string;
}

export interface Expectations {
  clusterName: string;
  groups: InstanceGroup[];
  workloads: ExpectedWorkload[];
  /** Cilium's ENI IPAM: every node's CiliumNode holds its ENIs and pod addresses. */
  eni: boolean;
}

/**
 * The add-ons the program declares for a spec (components/features.ts), each as its renderer draws it. The API
 * endpoint and the queue's URL only fill environment values, never a workload's name or kind.
 */
export function addonRenders(spec: ClusterSpec, apiEndpoint = "", queueUrl = ""): [string, StagedObjects][] {
  return ADDONS.filter((addon) => addon.enabled(spec)).map((addon) => [
    addon.name,
    addon.render(spec, { apiEndpoint, queueUrl }),
  ]);
}

export function expectations(spec: ClusterSpec): Expectations {
  const workloads = addonRenders(spec).flatMap(([addon, objects]) =>
    objects.workloads
      .filter((o) => o.kind === "DaemonSet" || o.kind === "Deployment")
      .map((o): ExpectedWorkload => ({
        kind: o.kind as ExpectedWorkload["kind"],
        namespace: o.metadata.namespace ?? "default",
        name: o.metadata.name,
        addon,
      })),
  );
  return {
    clusterName: spec.clusterName,
    groups: instanceGroups(spec),
    workloads,
    eni: eniMode(spec.networking.cilium),
  };
}

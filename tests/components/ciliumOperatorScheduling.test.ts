/**
 * The operator's placement against the taints and labels of a fresh cluster's nodes. The matcher follows
 * Kubernetes's `Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go) and the scheduler's
 * TaintToleration filter (only `NoSchedule` and `NoExecute` taints keep a pod off a node).
 */
import { expect } from "chai";
import { renderCiliumManifests } from "../../components/cilium/ciliumManifests";
import type { ClusterSpec } from "../../config/types";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}
interface Toleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: string;
}

function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "Equal") {
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

function schedulable(pod: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] }, node: FreshNode) {
  const selected = Object.entries(pod.nodeSelector ?? {}).every(([k, v]) => node.labels[k] === v);
  const blocking = node.taints.filter((t) => t.effect !== "PreferNoSchedule");
  return selected && blocking.every((taint) => (pod.tolerations ?? []).some((t) => toleratesTaint(t, taint)));
}

interface FreshNode {
  labels: Record<string, string>;
  taints: Taint[];
}

/** Before Cilium is ready: the kubelet's and node controller's not-ready taints, the external cloud provider's, Cilium's. */
const FRESH: Taint[] = [
  { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
  { key: "node.kubernetes.io/not-ready", effect: "NoExecute" },
  { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" },
  { key: "node.cilium.io/agent-not-ready", value: "true", effect: "NoSchedule" },
];
const CONTROL_PLANE: FreshNode = {
  labels: { "kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": "" },
  taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }, ...FRESH],
};
const WORKER: FreshNode = { labels: { "kubernetes.io/os": "linux" }, taints: FRESH };

const specWith = (edit: Raw): ClusterSpec => {
  const { spec, errors } = validateConfig(merge(baseConfig(), edit), REGION);
  expect(errors).to.deep.equal([]);
  return spec;
};
const operatorPod = (spec: ClusterSpec) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (renderCiliumManifests(spec, "api").workloads.find((o) => o.kind === "Deployment")!.spec as any).template.spec;

const MODES: Record<string, Raw> = {
  default: { networking: { cilium: { ipam: "", disableMasquerade: false } } },
  crd: { networking: { cilium: { ipam: "crd", disableMasquerade: false } } },
  eni: {},
};

describe("Cilium operator on a fresh cluster", () => {
  it("schedules on a fresh control-plane node in every mode, and in ENI mode nowhere else", () => {
    for (const [mode, edit] of Object.entries(MODES)) {
      const pod = operatorPod(specWith(edit));
      expect(schedulable(pod, CONTROL_PLANE), mode).to.equal(true);
      expect(schedulable(pod, WORKER), mode).to.equal(mode !== "eni");
    }
  });

  it("the matcher rejects the placement that deadlocked ENI mode (not-ready tolerated only for NoExecute)", () => {
    const old = {
      nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
      tolerations: [
        { key: "node-role.kubernetes.io/control-plane", operator: "Exists" as const, effect: "NoSchedule" },
        { key: "node.kubernetes.io/not-ready", operator: "Exists" as const, effect: "NoExecute" },
        { key: "node.kubernetes.io/unreachable", operator: "Exists" as const, effect: "NoExecute" },
        { key: "node.cloudprovider.kubernetes.io/uninitialized", operator: "Exists" as const },
      ],
    };
    expect(schedulable(old, CONTROL_PLANE)).to.equal(false);
    const ready = { ...CONTROL_PLANE, taints: CONTROL_PLANE.taints.slice(0, 1) };
    expect(schedulable(old, ready), "once the node is ready").to.equal(true);
  });

  it("tolerates the agent-not-ready taint, which only the operator removes", () => {
    for (const edit of Object.values(MODES)) {
      const taint: Taint = { key: "node.cilium.io/agent-not-ready", value: "true", effect: "NoExecute" };
      expect(operatorPod(specWith(edit)).tolerations.some((t: Toleration) => toleratesTaint(t, taint))).to.equal(true);
    }
  });
});

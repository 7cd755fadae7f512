/**
 * Changes the engines that run the cluster refuse, or do not support, on a running cluster: kubeadm's
 * version skew, Cilium's one-minor-at-a-time upgrades and fixed IPAM mode, and a cluster rename (kOps refuses
 * one: it is a new cluster). Each compares a fact of the base plan with the same fact of the new one.
 */
import { CILIUM_LINES, newestRelease } from "../catalogs/ciliumVersions";
import { decodeUserData } from "../components/nodes/userDataEncoding";
import { ciliumOf, clusterNameOf, inputsOf, LAUNCH_TEMPLATE } from "./clusterFacts";
import type { PlanDiff } from "./diff";
import type { Risk, RiskOptions } from "./risks";
import type { Plan } from "./run";

const VERSION_LINE = /^\s*KUBERNETES_VERSION='(\d+)\.(\d+)\.(\d+)'$/m;

/** The Kubernetes version the plan's nodes install, read from the user data they boot with. */
function kubernetesVersion(plan: Plan): [number, number, number] | undefined {
  for (const r of plan.resources.filter((x) => x.type === LAUNCH_TEMPLATE)) {
    const userData = inputsOf(r).userData;
    if (typeof userData !== "string") continue;
    const match = VERSION_LINE.exec(decodeUserData(userData));
    if (match) return [Number(match[1]), Number(match[2]), Number(match[3])];
  }
  return undefined;
}

/** kubeadm upgrades one minor version at a time and never downgrades. */
function kubernetesSkew(diff: PlanDiff): Risk[] {
  const [from, to] = [kubernetesVersion(diff.before), kubernetesVersion(diff.after)];
  if (!from || !to) return [];
  const [a, b] = [from.join("."), to.join(".")];
  const order = to[0] - from[0] || to[1] - from[1] || to[2] - from[2];
  if (order < 0) {
    return [
      { level: "error", text: `kubernetesVersion goes down, ${a} → ${b}: Kubernetes cannot be downgraded in place.` },
    ];
  }
  if (to[0] !== from[0] || to[1] - from[1] > 1) {
    return [
      {
        level: "error",
        text: `kubernetesVersion jumps ${a} → ${b}: Kubernetes upgrades one minor version at a time; go to ${from[0]}.${from[1] + 1} first.`,
      },
    ];
  }
  return [];
}

/** Cilium's upgrade guide: upgrade (and roll back) one minor version at a time. */
function ciliumSkew(diff: PlanDiff): Risk[] {
  const [from, to] = [ciliumOf(diff.before).version, ciliumOf(diff.after).version];
  if (!from || !to || (to[0] === from[0] && Math.abs(to[1] - from[1]) <= 1)) return [];
  const next = `${from[0]}.${from[1] + (to[1] > from[1] ? 1 : -1)}`;
  const line = CILIUM_LINES.find((l) => l.line === next);
  const version = line ? newestRelease(line).version : `v${next}.<patch>`;
  return [
    {
      level: "error",
      text:
        `networking.cilium.version goes v${from.join(".")} → v${to.join(".")}, skipping a minor version: ` +
        `Cilium upgrades one minor at a time; go to ${next} first ` +
        `(pulumi config set --path networking.cilium.version ${version}), pulumi up, then on.`,
    },
  ];
}

/** docs/cilium.md, "What not to do": pods keep the addresses of the old mode, which new agents cannot route. */
function ipamSwitch(diff: PlanDiff): Risk[] {
  const [from, to] = [ciliumOf(diff.before).ipam, ciliumOf(diff.after).ipam];
  if (!from || !to || from === to) return [];
  return [
    {
      level: "warning",
      text:
        `Cilium's IPAM mode changes, ${from} → ${to}: Cilium does not support changing IPAM on a live cluster ` +
        "(pods keep the addresses of the old mode, and the new agents cannot route to them). Do it only on a " +
        "cluster you can drain or rebuild, or create a new stack in the new mode and move workloads " +
        `(docs/cilium.md); to keep the mode: pulumi config set --path networking.cilium.ipam ${from}.`,
    },
  ];
}

/**
 * A new clusterName renames every AWS resource and tag, the CAs and keys and the etcd data: a new cluster
 * replaces the old, which kOps refuses. An error unless the reviewer asked for it.
 */
function clusterRename(diff: PlanDiff, options: RiskOptions): Risk[] {
  const [from, to] = [clusterNameOf(diff.before), clusterNameOf(diff.after)];
  if (!from || !to || from === to) return [];
  const replaced = diff.changes.filter((c) => c.op === "replace" || c.op === "delete").length;
  const what =
    `clusterName changes ${from} → ${to}: that builds a new cluster in place of this one ` +
    `(${replaced} resources replaced or deleted, every node terminated, new CAs and keys, an empty etcd)`;
  if (options.allowClusterRename) {
    return [{ level: "warning", text: `${what}; allowed by --allow-cluster-rename.` }];
  }
  return [
    {
      level: "error",
      text:
        `${what}. Clusters are not renamed (kOps refuses it too): keep the name ` +
        `(pulumi config set clusterName ${from}), or create a new stack for ${to}; ` +
        "to plan the new cluster anyway, add --allow-cluster-rename.",
    },
  ];
}

export const liveClusterRisks = (diff: PlanDiff, options: RiskOptions): Risk[] => [
  ...clusterRename(diff, options),
  ...kubernetesSkew(diff),
  ...ciliumSkew(diff),
  ...ipamSwitch(diff),
];

/**
 * Changes the engines that run the cluster refuse, or do not support, on a running cluster: kubeadm's
 * version skew and etcd's upgrade floor (and the order of an upgrade they allow), Cilium's one-minor-at-a-time
 * upgrades (and what the one minor it allows asks) and fixed IPAM mode, and a cluster rename (kOps refuses one: it is a new cluster). Each compares a
 * fact of the base plan with the same fact of the new one.
 */
import { CILIUM_LINES, newestRelease } from "../../catalogs/ciliumVersions";
import { APPLIED_VERSION_OUTPUT } from "../../components/appliedStateOutputs";
import { CILIUM_IPAM_MODE } from "../../components/cilium/configMap";
import {
  kubernetesUpgrade,
  nodesRollAfterControlPlane,
  upgradeErrors,
} from "../../config/validation/kubernetesUpgrade";
import { formatWithFix } from "../../config/validation/report";
import { ASG, ciliumOf, clusterNameOf, groupOf, isControlPlane } from "./clusterFacts";
import type { PlanDiff } from "./diff";
import type { Risk, RiskOptions } from "./risks";
import type { Plan } from "./run";

/** The Kubernetes version the plan's control plane runs once applied: its stack output (components/cluster.ts). */
function kubernetesVersion(plan: Plan): string | undefined {
  const version = plan.outputs[APPLIED_VERSION_OUTPUT];
  return typeof version === "string" ? version : undefined;
}

const groupsOf = (plan: Plan, controlPlane: boolean) =>
  plan.resources.filter((r) => r.type === ASG && isControlPlane(r) === controlPlane).map(groupOf);

/**
 * kubeadm's version policy and etcd's upgrade floor (config/validation/kubernetesUpgrade.ts): what the program
 * refuses against the version a stack last applied, here against the base plan's. An upgrade they allow is
 * stated with its order: the control plane one member at a time, then the node groups.
 */
function kubernetesSkew(diff: PlanDiff): Risk[] {
  const [from, to] = [kubernetesVersion(diff.before), kubernetesVersion(diff.after)];
  if (!from || !to) return [];
  const refused = upgradeErrors(from, to);
  if (refused.length > 0) return refused.map((e) => ({ level: "error", text: formatWithFix(e) }));
  const upgrade = kubernetesUpgrade(from, to)!;
  if (upgrade.kind === "none") return [];
  const { etcd } = upgrade;
  const etcdMoves = etcd.from && etcd.to && etcd.from !== etcd.to ? ` (etcd ${etcd.from} → ${etcd.to})` : "";
  const controlPlane =
    `the control plane first, one member at a time: control-plane group(s) ${groupsOf(diff.after, true).join(", ")} ` +
    `are replaced one after another, the first new node moving the cluster's kubeadm configuration to ${to} before it joins`;
  const nodes = groupsOf(diff.after, false);
  const then =
    nodes.length === 0
      ? ""
      : nodesRollAfterControlPlane(upgrade)
        ? `; only then do node group(s) ${nodes.join(", ")} roll onto kubelet ${to}, once the last control-plane group's ` +
          "refresh has succeeded (a kubelet is never newer than its API server)"
        : `; node group(s) ${nodes.join(", ")} roll onto kubelet ${to} meanwhile (a patch release runs with the API servers of its minor)`;
  return [
    {
      level: "warning",
      text:
        `Kubernetes is upgraded, ${from} → ${to}${etcdMoves}: ${controlPlane}${then}; how each group rolls, and ` +
        "whether its pods are drained, is below. Once a control plane of the new release runs, the upgrade only " +
        "goes forward: new nodes of an older version refuse to join. Should the first new control-plane node " +
        "fail before that, setting the version back moves the cluster back (docs/operations.md, upgrades).",
    },
  ];
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

/**
 * A Cilium minor change its upgrade guide allows (one minor up or back): "the only tested rollback and upgrade
 * path is between consecutive minor releases", upgrading from the newest patch of the current line after
 * reading the new line's upgrade notes. When the Kubernetes version moves in the same update (an unset
 * networking.cilium.version follows it), how to take one at a time.
 */
function ciliumMinorMove(diff: PlanDiff): Risk[] {
  const [from, to] = [ciliumOf(diff.before).version, ciliumOf(diff.after).version];
  if (!from || !to || to[0] !== from[0] || to[1] === from[1] || Math.abs(to[1] - from[1]) > 1) return [];
  const [was, now] = [`v${from.join(".")}`, `v${to.join(".")}`];
  const line = CILIUM_LINES.find((l) => l.line === `${from[0]}.${from[1]}`);
  const newest = line ? newestRelease(line).version : undefined;
  const move =
    to[1] > from[1]
      ? `Cilium moves up a minor, ${was} → ${now}: the agents and the operator roll onto it; Cilium's upgrade ` +
        `guide asks that its ${to[0]}.${to[1]} upgrade notes be read first` +
        (newest && newest !== was
          ? `, and that ${from[0]}.${from[1]} be at its newest patch before (${newest}: pulumi config set --path networking.cilium.version ${newest}, pulumi up, then on)`
          : "")
      : `Cilium goes back a minor, ${was} → ${now}: a rollback its upgrade guide supports between consecutive ` +
        "minors; the agents and the operator roll back onto it";
  const [k8sFrom, k8sTo] = [kubernetesVersion(diff.before), kubernetesVersion(diff.after)];
  const together =
    k8sFrom && k8sTo && k8sFrom !== k8sTo
      ? `; it moves in the same update as Kubernetes ${k8sFrom} → ${k8sTo}: to take one at a time, hold Cilium: ` +
        `pulumi config set --path networking.cilium.version ${was}`
      : "";
  return [{ level: "warning", text: `${move}${together}.` }];
}

/** The config's `networking.cilium.ipam` value of a cilium-config IPAM mode (`kubernetes` is `""`). */
const configIpam = (mode: string): string | undefined =>
  Object.entries(CILIUM_IPAM_MODE).find(([, m]) => m === mode)?.[0];

/** docs/cilium.md, "What not to do": pods keep the addresses of the old mode, which new agents cannot route. */
function ipamSwitch(diff: PlanDiff): Risk[] {
  const [from, to] = [ciliumOf(diff.before).ipam, ciliumOf(diff.after).ipam];
  if (!from || !to || from === to) return [];
  const kept = configIpam(from);
  return [
    {
      level: "warning",
      text:
        `Cilium's IPAM mode changes, ${from} → ${to}: Cilium does not support changing IPAM on a live cluster ` +
        "(pods keep the addresses of the old mode, and the new agents cannot route to them). Do it only on a " +
        "cluster you can drain or rebuild, or create a new stack in the new mode and move workloads " +
        "(docs/cilium.md)" +
        (kept === undefined
          ? "."
          : `; to keep the mode: pulumi config set --path networking.cilium.ipam '${kept}', with the settings ` +
            "that mode needs (docs/cluster-config.md)."),
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
  ...ciliumMinorMove(diff),
  ...ipamSwitch(diff),
];

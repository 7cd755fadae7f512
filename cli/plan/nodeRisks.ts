/**
 * What a diff does to running nodes, from the resource graph: a group whose launch template changes, or whose
 * subnets are replaced, rolls by instance refresh; a group whose zones change moves instances between them
 * (no refresh starts for that); a group whose maximum size drops below what it runs terminates the excess; a
 * group deleted or replaced has its instances terminated. Each says
 * whether the instances are drained, from the group's termination hooks (components/nodes/lifecycleHooks.ts):
 * in the drain hook aws-node-termination-handler drains the node, respecting PodDisruptionBudgets; in the
 * etcd hook a control-plane instance waits until its member has left; a group without the drain hook has
 * its pods ended with no drain.
 */
import { DRAIN_LIFECYCLE_HOOK, ETCD_LIFECYCLE_HOOK } from "../../components/nodes/lifecycleHooks";
import { INSTANCE_GROUP_TAG } from "../../catalogs/kopsTagKeys";
import { ASG, groupOf, inputsOf, isControlPlane, LAUNCH_TEMPLATE, terminationHooks } from "./clusterFacts";
import { deletesFirst } from "./deleteFirst";
import type { PlanDiff, ResourceChange } from "./diff";
import type { Risk } from "./risks";
import type { Plan, PlannedResource } from "./run";

const SUBNET = "aws:ec2/subnet:Subnet";
const quoteList = (names: readonly string[]) => names.join(", ");

/** What the instance waits for in each termination hook the program declares. */
const HELD_UNTIL: Record<string, string> = {
  [DRAIN_LIFECYCLE_HOOK]: " while aws-node-termination-handler drains its node, respecting PodDisruptionBudgets",
  [ETCD_LIFECYCLE_HOOK]: " until its node is drained and its etcd member has left",
};

/** How a terminating instance of the group leaves: held by its termination hooks, drained or not. */
function howTerminated(plan: Plan, asg: PlannedResource): string {
  // The drain first: the etcd hook's wait follows it.
  const hooks = terminationHooks(plan, asg).sort(
    (a, b) => Number(b.name === DRAIN_LIFECYCLE_HOOK) - Number(a.name === DRAIN_LIFECYCLE_HOOK),
  );
  const held = hooks.map(
    (hook) =>
      `each waits in termination hook ${hook.name} (up to ${hook.heartbeatTimeout} s)${HELD_UNTIL[hook.name] ?? ""}`,
  );
  const drained = hooks.some((hook) => hook.name === DRAIN_LIFECYCLE_HOOK);
  return [...held, drained ? "a pod not evicted by then ends with the instance" : "pods are not drained"].join("; ");
}

/** What to do first when a group's instances go: drain them by hand, unless the drain hook does. */
function drainFirst(plan: Plan, asg: PlannedResource): string {
  if (terminationHooks(plan, asg).some((hook) => hook.name === DRAIN_LIFECYCLE_HOOK)) return "";
  return `; drain them first (kubectl drain${instancesTagged(asg)}) to move their pods gracefully`;
}

const groupLabel = (asg: PlannedResource) => `${isControlPlane(asg) ? "control-plane group" : "group"} ${groupOf(asg)}`;

/** How many instances a group runs: its desired capacity when it pins one, else its size range. */
function sizeOf(asg: PlannedResource): string {
  const { minSize, maxSize, desiredCapacity } = inputsOf(asg);
  if (desiredCapacity !== undefined) return String(desiredCapacity);
  return minSize === maxSize ? String(minSize) : `${String(minSize)} to ${String(maxSize)}`;
}

/** How to find a group's nodes: the tag its instances carry. */
function instancesTagged(asg: PlannedResource): string {
  const tags = (inputsOf(asg).tags ?? []) as { key?: string; value?: string }[];
  const tag = tags.find((t) => t.key === INSTANCE_GROUP_TAG);
  return tag ? ` each node whose instance has the tag ${INSTANCE_GROUP_TAG}=${tag.value}` : "";
}

/** Groups whose Auto Scaling group is deleted or replaced: every instance in them is terminated. */
function terminations(diff: PlanDiff): Risk[] {
  const before = new Map(diff.before.resources.map((r) => [r.urn, r]));
  return diff.changes
    .filter((c) => c.type === ASG && (c.op === "delete" || c.op === "replace"))
    .map((c) => {
      const asg = before.get(c.urn)!;
      // A group the program names is deleted before its replacement exists (deleteFirst.ts): none of its
      // nodes run in between.
      const order = deletesFirst(asg)
        ? "the old one is deleted first, then the new one launches new nodes"
        : "a new group launches new nodes, then the old one is deleted";
      const how = c.op === "delete" ? "is deleted" : `is replaced (${quoteList(replacingPaths(c))}): ${order}`;
      return {
        level: "warning",
        text:
          `Nodes are terminated: ${groupLabel(asg)} ${how}; its ${sizeOf(asg)} instance(s) are terminated: ` +
          `${howTerminated(diff.before, asg)}${drainFirst(diff.before, asg)}.`,
      };
    });
}

const replacingPaths = (c: ResourceChange) => [...new Set(c.changes.filter((p) => p.replaces).map((p) => p.path))];

/** Groups that come new: they launch nodes and terminate none. */
function creations(diff: PlanDiff): Risk[] {
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  return diff.changes
    .filter((c) => c.type === ASG && c.op === "create")
    .map((c) => {
      const asg = after.get(c.urn)!;
      return { level: "info", text: `New ${groupLabel(asg)}: it launches ${sizeOf(asg)} node(s).` };
    });
}

/**
 * The instances an instance refresh keeps in service, as AWS counts them (RefreshPreferences in the Auto
 * Scaling API reference): MinHealthyPercentage of the desired capacity, rounded up; "100 percent limits the
 * rate of replacement to one instance at a time", so at least one is replaced at a time, and while
 * MaxHealthyPercentage is 100 none is launched before one terminates. A group that pins no desired capacity
 * (node groups, left to autoscalers) is counted at its minimum size.
 */
function inService(asg: PlannedResource): string {
  const { instanceRefresh, minSize, desiredCapacity } = inputsOf(asg);
  const preferences = (instanceRefresh as { preferences?: Record<string, unknown> } | undefined)?.preferences;
  const min = preferences?.minHealthyPercentage;
  const max = (preferences?.maxHealthyPercentage as number | undefined) ?? 100;
  const size = (desiredCapacity ?? minSize) as number | undefined;
  // A group at 0 (its minimum, not pinned) has nothing to keep in service, until scaled up.
  if (typeof min !== "number" || typeof size !== "number" || size === 0) return "";
  const of = desiredCapacity === undefined ? `${size} (its minimum size; more if scaled up)` : String(size);
  if (max > 100 && min === 100)
    return `, launching each replacement before its instance terminates: all ${of} instance(s) stay in service`;
  const kept = Math.ceil((size * min) / 100);
  return `, keeping ${max > 100 ? kept : Math.min(kept, Math.max(size - 1, 0))} of ${of} instance(s) in service`;
}

/** How an instance refresh replaces a group's nodes, from its preferences and termination hooks. */
function howRolled(plan: Plan, asg: PlannedResource): string {
  return `instance refresh replaces its nodes${inService(asg)}; ${howTerminated(plan, asg)}`;
}

/** Groups kept whose nodes are replaced by instance refresh: a new launch template version, or new subnets. */
function rolls(diff: PlanDiff): Risk[] {
  const asgOf = new Map(diff.after.resources.filter((r) => r.type === ASG).map((r) => [groupOf(r), r]));
  const reasons = new Map<string, string[]>();
  const add = (group: string, reason: string) => reasons.set(group, [...(reasons.get(group) ?? []), reason]);
  for (const c of diff.changes) {
    if (c.type === LAUNCH_TEMPLATE && (c.op === "update" || c.op === "replace")) {
      add(groupOf(c), `launch template changes (${quoteList(c.changes.map((p) => p.path))})`);
    }
    if (c.type !== ASG || c.op !== "update") continue;
    const subnets = c.causes.filter((name) => diff.changes.some((s) => s.type === SUBNET && s.name === name));
    if (subnets.length) add(groupOf(c), `its subnets are replaced (${quoteList(subnets)})`);
  }
  // A group that is itself deleted or replaced is reported as terminated, not as rolling.
  const kept = [...reasons].filter(([group]) => {
    const asg = asgOf.get(group);
    return asg && !diff.changes.some((c) => c.urn === asg.urn && c.op !== "update");
  });
  return kept.map(([group, why]) => {
    const asg = asgOf.get(group)!;
    return {
      level: "warning",
      text: `Nodes will roll: ${groupLabel(asg)}: ${why.join("; ")}: ${howRolled(diff.after, asg)}.`,
    };
  });
}

/**
 * Groups kept whose zones change (vpcZoneIdentifiers alone): no instance refresh starts (it starts on a launch
 * template or mixed-instances change), but Auto Scaling terminates the instances in a zone the group leaves
 * and rebalances across the zones it spans, launching in the new ones before terminating elsewhere (the user
 * guide's "Rebalancing activities").
 */
function zoneMoves(diff: PlanDiff): Risk[] {
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  return diff.changes
    .filter(
      (c) =>
        c.type === ASG &&
        c.op === "update" &&
        c.changes.some((p) => p.path.startsWith("vpcZoneIdentifiers") && !p.cause),
    )
    .map((c) => {
      const asg = after.get(c.urn)!;
      return {
        level: "warning",
        text:
          `Nodes move between zones: ${groupLabel(asg)}: its subnets change; no instance refresh starts for that: ` +
          "Auto Scaling terminates its instances in a zone it leaves, and rebalances across the zones it spans, " +
          `launching in the new ones before terminating elsewhere; ${howTerminated(diff.after, asg)}.`,
      };
    });
}

/**
 * Groups kept whose maximum size drops: "if the new MaxSize is smaller than the current size of the group,
 * there is an implicit call to SetDesiredCapacity to set the size of the group to the new value of MaxSize"
 * (UpdateAutoScalingGroup, Auto Scaling API reference), which terminates the excess.
 */
function shrinks(diff: PlanDiff): Risk[] {
  const before = new Map(diff.before.resources.map((r) => [r.urn, r]));
  const after = new Map(diff.after.resources.map((r) => [r.urn, r]));
  return diff.changes
    .filter((c) => c.type === ASG && c.op === "update" && c.changes.some((p) => p.path === "maxSize"))
    .flatMap((c) => {
      const [was, now] = [inputsOf(before.get(c.urn)!), inputsOf(after.get(c.urn)!)];
      const [from, to] = [was.maxSize as number, now.maxSize as number];
      if (!(to < from)) return [];
      const desired = was.desiredCapacity as number | undefined;
      if (desired !== undefined && desired <= to) return [];
      const asg = after.get(c.urn)!;
      const excess =
        desired === undefined
          ? `terminating the instances above ${to} if it runs more`
          : `terminating ${desired - to} of its ${desired} instance(s)`;
      return [
        {
          level: "warning",
          text:
            `Nodes may be terminated: ${groupLabel(asg)}: its maximum size goes from ${from} to ${to}: Auto Scaling ` +
            `lowers its desired capacity to ${to}, ${excess}; ${howTerminated(diff.after, asg)}.`,
        },
      ];
    });
}

export function nodeRisks(diff: PlanDiff): Risk[] {
  const risks = [...terminations(diff), ...rolls(diff), ...zoneMoves(diff), ...shrinks(diff), ...creations(diff)];
  if (risks.length > 0) return risks;
  return [{ level: "info", text: "Nodes will not roll: no launch template, subnet, zone or size change." }];
}

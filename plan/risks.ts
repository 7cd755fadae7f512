/**
 * What a reviewer must see first in a plan diff: which node groups roll and why, zones added or removed,
 * control-plane members that move, API endpoints that change, data at risk, Kubernetes objects deleted from
 * the cluster, IAM permissions widened or narrowed, and Kubernetes version skew. Pure: a diff in, summary lines out.
 */
import { decodeUserData } from "../components/nodes/userDataEncoding";
import type { PlanDiff, ResourceChange } from "./diff";
import { allowedActions, POLICY_DOCUMENTS } from "./policyDiff";
import type { Plan, PlannedResource } from "./run";

export interface Risk {
  /** `error`: the change must not be applied as it is. */
  level: "error" | "warning" | "info";
  text: string;
}

const ASG = "aws:autoscaling/group:Group";
const SUBNET = "aws:ec2/subnet:Subnet";
const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
const LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer";
/** Resources whose replacement or deletion loses state: the VPC with everything in it, keys, CAs, secrets. */
const STATEFUL = new Set([
  "aws:ec2/vpc:Vpc",
  "tls:index/privateKey:PrivateKey",
  "tls:index/selfSignedCert:SelfSignedCert",
  "aws:ssm/parameter:Parameter",
  "aws:kms/key:Key",
]);

type Inputs = Record<string, unknown>;
const inputsOf = (r: PlannedResource | undefined): Inputs => (r?.inputs ?? {}) as Inputs;
const byUrn = (plan: Plan) => new Map(plan.resources.map((r) => [r.urn, r]));
const quoteList = (names: readonly string[]) => names.join(", ");

function isControlPlane(r: PlannedResource | undefined): boolean {
  const tags = inputsOf(r).tags;
  return Array.isArray(tags) && tags.some((t) => (t as { key?: string }).key === "k8s.io/role/control-plane");
}

/** The instance group an Auto Scaling group or launch template belongs to: its component's name. */
const groupOf = (r: { name: string }): string => r.name.replace(/-(group|template)$/, "");

function rolls(diff: PlanDiff): Risk[] {
  const after = byUrn(diff.after);
  const before = byUrn(diff.before);
  const reasons = new Map<string, string[]>();
  const add = (group: string, reason: string) => reasons.set(group, [...(reasons.get(group) ?? []), reason]);
  for (const c of diff.changes) {
    if (c.type === LAUNCH_TEMPLATE && (c.op === "update" || c.op === "replace")) {
      add(groupOf(c), `launch template changes (${quoteList(c.changes.map((p) => p.path))})`);
    }
    if (c.type !== ASG || c.op === "create" || c.op === "delete") continue;
    const subnets = c.causes.filter((name) => diff.changes.some((s) => s.type === SUBNET && s.name === name));
    if (subnets.length) add(groupOf(c), `its subnets are replaced (${quoteList(subnets)})`);
    if (c.changes.some((p) => p.path.startsWith("vpcZoneIdentifiers") && !p.cause))
      add(groupOf(c), "its subnets change (instances in a zone it leaves are replaced)");
    if (c.op === "replace") add(groupOf(c), "its Auto Scaling group is replaced");
  }
  const controlPlane = (group: string) =>
    [...after.values(), ...before.values()].some((r) => r.type === ASG && groupOf(r) === group && isControlPlane(r));
  if (reasons.size === 0)
    return [{ level: "info", text: "Nodes will not roll: no launch template or subnet changes." }];
  return [...reasons].map(([group, why]) => ({
    level: "warning",
    text: `Nodes will roll: ${controlPlane(group) ? "control-plane group" : "group"} ${group}: ${why.join("; ")}.`,
  }));
}

function zonesOf(plan: Plan): Map<string, string[]> {
  const zones = new Map<string, string[]>();
  for (const r of plan.resources.filter((x) => x.type === SUBNET)) {
    const zone = String(inputsOf(r).availabilityZone);
    zones.set(zone, [...(zones.get(zone) ?? []), r.name]);
  }
  return zones;
}

function zoneMoves(diff: PlanDiff): Risk[] {
  const [before, after] = [zonesOf(diff.before), zonesOf(diff.after)];
  const risks: Risk[] = [];
  for (const [zone, subnets] of before) {
    if (after.has(zone)) continue;
    risks.push({
      level: "warning",
      text:
        `Zone ${zone} is removed: its subnets (${quoteList(subnets)}) are deleted, and every node in them ` +
        "must go first (node groups move their instances to the remaining zones).",
    });
  }
  for (const zone of after.keys()) if (!before.has(zone)) risks.push({ level: "info", text: `Zone ${zone} is added.` });
  const renumbered = diff.changes.filter(
    (c) => c.type === SUBNET && c.op === "replace" && c.changes.some((p) => p.path === "cidrBlock"),
  );
  if (renumbered.length) {
    const moves = renumbered.map((c) => {
      const cidr = c.changes.find((p) => p.path === "cidrBlock")!;
      return `${c.name} ${String(cidr.old)} → ${String(cidr.new)}`;
    });
    risks.push({
      level: "warning",
      text: `Subnets change CIDR and are replaced under the nodes they hold: ${quoteList(moves)}.`,
    });
  }
  const members = (op: ResourceChange["op"], plan: Plan) =>
    diff.changes
      .filter((c) => c.type === ASG && c.op === op)
      .filter((c) => isControlPlane(plan.resources.find((r) => r.urn === c.urn)))
      .map(groupOf);
  const [gone, added] = [members("delete", diff.before), members("create", diff.after)];
  if (gone.length) {
    const to = added.length ? `; new member(s) ${quoteList(added)} join` : "";
    risks.push({
      level: "warning",
      text:
        `The control plane moves: member(s) ${quoteList(gone)} are deleted with their etcd data${to}. ` +
        "With one control-plane node, this replaces the cluster's only API server and etcd.",
    });
  }
  return risks;
}

function dataAtRisk(diff: PlanDiff): Risk[] {
  const lost = diff.changes.filter((c) => STATEFUL.has(c.type) && (c.op === "replace" || c.op === "delete"));
  if (lost.length === 0) return [];
  return [
    {
      level: "warning",
      text:
        `Data at risk: ${quoteList(lost.map((c) => `${c.name} (${c.type.split(":")[2]}, ${c.op})`))}: ` +
        "recreated, not kept (a new VPC takes everything in it; a new key or CA invalidates what it signed).",
    },
  ];
}

/**
 * A replaced API load balancer is a new DNS name: the cluster's endpoint changes under everything that
 * names the old one (kubeadm's controlPlaneEndpoint and the API server certificate's SANs on the running
 * control plane, every node's kubeconfig, the admin kubeconfig).
 */
function apiEndpointMoves(diff: PlanDiff): Risk[] {
  const replaced = diff.changes.filter((c) => c.type === LOAD_BALANCER && c.op === "replace");
  if (replaced.length === 0) return [];
  const why = (c: ResourceChange) => {
    const paths = [...new Set(c.changes.filter((p) => p.replaces).map((p) => p.path.split(/[.[]/)[0]))];
    return `${c.name} (${quoteList(paths)})`;
  };
  return [
    {
      level: "warning",
      text:
        `The API endpoints change: load balancer(s) ${quoteList(replaced.map(why))} are replaced and get new DNS ` +
        "names. Every node's kubeconfig, the control plane's controlPlaneEndpoint and API server certificate, " +
        "and the admin kubeconfig name the old ones: running nodes lose the API until they are replaced.",
    },
  ];
}

const isKubernetesObject = (type: string) => type.startsWith("kubernetes:");

/**
 * Kubernetes objects that leave the stack: deleted from the live cluster unless the stack's state holds
 * them with retainOnDelete (a stack last updated before the add-on objects were retained deletes them).
 */
function kubernetesDeletions(diff: PlanDiff): Risk[] {
  const before = byUrn(diff.before);
  const gone = diff.changes.filter((c) => c.op === "delete" && isKubernetesObject(c.type));
  const retained = gone.filter((c) => before.get(c.urn)?.retainOnDelete);
  const deleted = gone.filter((c) => !before.get(c.urn)?.retainOnDelete);
  const risks: Risk[] = [];
  if (deleted.length) {
    risks.push({
      level: "warning",
      text:
        `Kubernetes objects are deleted from the live cluster: ${quoteList(deleted.map((c) => c.name))}. ` +
        "Deleting an add-on's objects (Cilium's) takes the add-on out of the running cluster.",
    });
  }
  if (retained.length) {
    risks.push({
      level: "info",
      text:
        `Kubernetes objects leave the stack but stay in the cluster (retainOnDelete): ` +
        `${quoteList(retained.map((c) => c.name))}; delete with kubectl any the cluster no longer needs.`,
    });
  }
  return risks;
}

function iamChanges(diff: PlanDiff): Risk[] {
  const before = byUrn(diff.before);
  const after = byUrn(diff.after);
  return diff.changes.flatMap((c) => {
    const field = POLICY_DOCUMENTS[c.type];
    if (!field) return [];
    const old = allowedActions(inputsOf(before.get(c.urn))[field]);
    const now = allowedActions(inputsOf(after.get(c.urn))[field]);
    const grants = [...now].filter((a) => !old.has(a)).sort();
    const revokes = [...old].filter((a) => !now.has(a)).sort();
    const risks: Risk[] = [];
    if (grants.length) risks.push({ level: "warning", text: `IAM widened: ${c.name} gains ${quoteList(grants)}.` });
    if (revokes.length) risks.push({ level: "info", text: `IAM narrowed: ${c.name} loses ${quoteList(revokes)}.` });
    return risks;
  });
}

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
export function versionSkew(diff: PlanDiff): Risk[] {
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

export function assessRisks(diff: PlanDiff): Risk[] {
  const replaced = diff.changes.filter((c) => c.op === "replace");
  const perType = new Map<string, number>();
  for (const c of replaced) perType.set(c.type.split(":")[2], (perType.get(c.type.split(":")[2]) ?? 0) + 1);
  const replacements: Risk[] = replaced.length
    ? [{ level: "warning", text: `Replaced: ${quoteList([...perType].map(([type, n]) => `${n} ${type}`))}.` }]
    : [];
  return [
    ...versionSkew(diff),
    ...zoneMoves(diff),
    ...apiEndpointMoves(diff),
    ...rolls(diff),
    ...dataAtRisk(diff),
    ...kubernetesDeletions(diff),
    ...iamChanges(diff),
    ...replacements,
  ];
}

/**
 * What a reviewer must see first in a plan diff: what the engines refuse on a live cluster
 * (liveClusterRisks.ts), zones added or removed, control-plane members that move, API endpoints that change,
 * nodes that roll or are terminated (nodeRisks.ts), data at risk, Kubernetes objects deleted from the
 * cluster, IAM permissions widened or narrowed. Pure: a diff in, summary lines out.
 */
import {
  ASG,
  BOOTSTRAP_SCRIPT,
  controlPlaneMembers,
  groupOf,
  inputsOf,
  isControlPlane,
  LAUNCH_TEMPLATE,
  LOAD_BALANCER,
} from "./clusterFacts";
import type { PlanDiff, ResourceChange } from "./diff";
import { liveClusterRisks } from "./liveClusterRisks";
import { nodeRisks } from "./nodeRisks";
import { allowedActions, POLICY_DOCUMENTS } from "./policyDiff";
import type { Plan } from "./run";
import { deleteFirstReplacements, deletesFirst } from "./deleteFirst";
import { apiAccessRuleName } from "../../components/network/securityRules";

export interface Risk {
  /** `error`: the change must not be applied as it is. */
  level: "error" | "warning" | "info";
  text: string;
}

const SUBNET = "aws:ec2/subnet:Subnet";
/** Resources whose replacement or deletion loses state: the VPC with everything in it, the cluster's key. */
const STATEFUL = new Set(["aws:ec2/vpc:Vpc", "aws:kms/key:Key"]);

const byUrn = (plan: Plan) => new Map(plan.resources.map((r) => [r.urn, r]));
const quoteList = (names: readonly string[]) => names.join(", ");

export interface RiskOptions {
  /** `--allow-cluster-rename`: a new clusterName is planned as the new cluster it is, not refused. */
  allowClusterRename?: boolean;
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
    const to = added.length ? `; new member(s) ${quoteList(added)} join first` : "";
    risks.push({
      level: "warning",
      text:
        `The control plane moves: member(s) ${quoteList(gone)} are deleted with their etcd data${to}. ` +
        quorum(controlPlaneMembers(diff.before), gone.length),
    });
  }
  return risks;
}

/** What the members that stay mean for etcd while `gone` of `members` leave. */
function quorum(members: number, gone: number): string {
  if (members === 1) return "With one control-plane member, this replaces the cluster's only API server and etcd.";
  const staying = members - gone;
  if (staying > members / 2) {
    return `The other ${staying} of ${members} members keep etcd's quorum and serve the API meanwhile.`;
  }
  return `Only ${staying} of ${members} members stay: etcd loses quorum, and the API stops, until new members join.`;
}

/**
 * A control plane that becomes one member: what losing its instance unplanned will cost from now on (the
 * config says so too, through controlPlane.acceptSingleNodeLoss).
 */
function singleMember(diff: PlanDiff): Risk[] {
  const [before, after] = [controlPlaneMembers(diff.before), controlPlaneMembers(diff.after)];
  if (after !== 1 || before === 1) return [];
  return [
    {
      level: before > 1 ? "warning" : "info",
      text:
        "One control-plane member: an unplanned loss of its instance costs the etcd writes since the last " +
        "snapshot (controlPlane.backupIntervalMinutes), which its replacement restores; three members lose nothing.",
    },
  ];
}

function dataAtRisk(diff: PlanDiff): Risk[] {
  const lost = diff.changes.filter((c) => (c.op === "replace" || c.op === "delete") && STATEFUL.has(c.type));
  if (lost.length === 0) return [];
  return [
    {
      level: "warning",
      text:
        `Data at risk: ${quoteList(lost.map((c) => `${c.name} (${c.type.split(":")[2]}, ${c.op})`))}: ` +
        "recreated, not kept (a new VPC takes everything in it; a new key cannot open what the old one encrypted).",
    },
  ];
}

/**
 * A replaced API load balancer is a new DNS name: whatever holds the old one changes with it, as the diff's
 * cascade finds it (an alias record, the control plane's user data, which names it in the API server
 * certificate's SANs, and the stack outputs). The kubeconfig output names the apiEndpoint output's endpoint.
 */
function apiEndpointMoves(diff: PlanDiff): Risk[] {
  const replaced = diff.changes.filter((c) => c.type === LOAD_BALANCER && c.op === "replace");
  if (replaced.length === 0) return [];
  const why = (c: ResourceChange) => {
    const paths = [...new Set(c.changes.filter((p) => p.replaces).map((p) => p.path.split(/[.[]/)[0]))];
    return `${c.name} (${quoteList(paths)})`;
  };
  const names = new Set(replaced.map((c) => c.name));
  // A group's installer that names them is a new object, and its loader a new user data: the group holds them.
  for (const c of diff.changes)
    if (c.type === BOOTSTRAP_SCRIPT && c.causes.some((cause) => names.has(cause))) names.add(c.name);
  const holders = diff.changes.filter((c) => c.op === "update" && c.causes.some((cause) => names.has(cause)));
  const records = holders.filter((c) => c.type === "aws:route53/record:Record").map((c) => c.name);
  const controlPlane = new Set(
    diff.after.resources.filter((r) => r.type === ASG && isControlPlane(r)).map((r) => groupOf(r)),
  );
  const outputs = diff.outputs.filter((o) => o.cause && names.has(o.cause)).map((o) => o.path);
  if (outputs.includes("apiEndpoint")) outputs.push("kubeconfig");
  const after = byUrn(diff.after);
  const deletedFirst = replaced.filter((c) => {
    const r = after.get(c.urn);
    return r !== undefined && deletesFirst(r);
  });
  const follow = [
    deletedFirst.length === 1
      ? `${deletedFirst[0].name} keeps its name, which AWS holds unique, so it is deleted before its replacement is ` +
        "created: the API is unreachable through it until the new one is active (minutes)"
      : "",
    deletedFirst.length > 1
      ? `${quoteList(deletedFirst.map((c) => c.name))} keep their names, which AWS holds unique, so each is deleted before its ` +
        "replacement is created: the API is unreachable through them until the new ones are active (minutes)"
      : "",
    records.length
      ? `the alias record(s) ${quoteList(records)} follow them, so nodes that reach the API by name keep it`
      : "",
    holders.some((c) => c.type === LAUNCH_TEMPLATE && controlPlane.has(groupOf(c)))
      ? "the control plane rolls: its API server certificate names them"
      : "",
    outputs.length ? `the stack outputs ${quoteList(outputs)} change: hand out the new kubeconfig after pulumi up` : "",
  ].filter(Boolean);
  return [
    {
      level: "warning",
      text:
        `The API endpoints change: load balancer(s) ${quoteList(replaced.map(why))} are replaced and get new DNS ` +
        `names${follow.length ? `: ${follow.join("; ")}` : ""}.`,
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

const INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";

/**
 * An `api.access` of 0.0.0.0/0 added: the API's load balancer then takes connections from any address on the
 * internet, and only authentication stands before the API server. Allowed (it must be written out), never
 * silent.
 */
function apiOpened(diff: PlanDiff): Risk[] {
  const after = byUrn(diff.after);
  const open = apiAccessRuleName("0.0.0.0/0");
  const opened = diff.changes.some(
    (c) =>
      c.type === INGRESS_RULE &&
      c.op === "create" &&
      (inputsOf(after.get(c.urn)).tags as Record<string, string> | undefined)?.Name === open,
  );
  if (!opened) return [];
  return [
    {
      level: "warning",
      text:
        "The Kubernetes API is opened to the whole internet (api.access 0.0.0.0/0): its load balancer takes " +
        "connections from any address, and only authentication stands before the API server. List the " +
        "addresses that need it instead, where you can.",
    },
  ];
}

const EIP = "aws:ec2/eip:Eip";

/**
 * NAT gateways' Elastic IPs released or allocated (network.natGateways, the topology, a zone): the addresses
 * the nodes' traffic leaves the VPC from change, and what outside the VPC allows them by address (a
 * partner's firewall, a database's allowlist) must follow.
 */
function egressAddresses(diff: PlanDiff): Risk[] {
  const eips = diff.changes.filter((c) => c.type === EIP && c.op !== "update");
  if (eips.length === 0) return [];
  const named = (...ops: ResourceChange["op"][]) => eips.filter((c) => ops.includes(c.op)).map((c) => c.name);
  const parts: [string, string[]][] = [
    ["released", named("delete", "replace")],
    ["allocated", named("create", "replace")],
  ];
  const said = parts.filter(([, names]) => names.length > 0).map(([what, names]) => `${what} (${quoteList(names)})`);
  return [
    {
      level: "warning",
      text:
        `The nodes' egress addresses change: NAT gateway Elastic IPs ${said.join(", ")}. ` +
        "Allowlists outside the VPC that name the old addresses must follow.",
    },
  ];
}

export function assessRisks(diff: PlanDiff, options: RiskOptions = {}): Risk[] {
  const replaced = diff.changes.filter((c) => c.op === "replace");
  const perType = new Map<string, number>();
  for (const c of replaced) perType.set(c.type.split(":")[2], (perType.get(c.type.split(":")[2]) ?? 0) + 1);
  const replacements: Risk[] = replaced.length
    ? [{ level: "warning", text: `Replaced: ${quoteList([...perType].map(([type, n]) => `${n} ${type}`))}.` }]
    : [];
  return [
    ...liveClusterRisks(diff, options),
    ...zoneMoves(diff),
    ...singleMember(diff),
    ...apiEndpointMoves(diff),
    ...apiOpened(diff),
    ...egressAddresses(diff),
    ...nodeRisks(diff),
    ...dataAtRisk(diff),
    ...deleteFirstReplacements(diff),
    ...kubernetesDeletions(diff),
    ...iamChanges(diff),
    ...replacements,
  ];
}

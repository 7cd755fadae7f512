/**
 * Nodes against the instance groups, kOps's `validate cluster`: each group's ready nodes against its minimum
 * size, every instance of a group joined as a node, every node ready and initialised by the cloud controller
 * manager. A node belongs to the group whose Auto Scaling group holds its instance (the instance ID in its
 * `providerID`, which the cloud controller manager sets); the kubelet registers no label naming the group.
 * Without AWS, nodes are counted by role against the groups' minimum sizes added up. Pure.
 */
import type { AutoScalingGroup } from "@aws-sdk/client-auto-scaling";
import type { V1Node } from "@kubernetes/client-node";
import type { InstanceGroup } from "../../components/nodes/instanceGroups";
import { CLOUD_UNINITIALIZED_TOLERATION, CONTROL_PLANE_NODES } from "../../components/k8s/placement";
import { INSTANCE_GROUP_TAG } from "../../catalogs/kopsTagKeys";
import type { AwsGroups } from "./clusterState";
import type { Failure } from "./failure";

type Role = InstanceGroup["role"];

/** A row of the node groups table: a group (or, without AWS, a role's groups together) and its nodes. */
export interface GroupRow {
  name: string;
  role: Role;
  minSize: number;
  maxSize: number;
  /** The group's instances that are not leaving it; undefined without AWS. */
  machines?: number;
  nodes: number;
  ready: number;
}

export interface NodeRow {
  name: string;
  role: Role;
  /** The instance group; undefined when unknown (no AWS, or the instance is in no group of the cluster). */
  group?: string;
  zone?: string;
  ready: boolean;
}

export interface NodeVerdict {
  groups: GroupRow[];
  nodes: NodeRow[];
  failures: Failure[];
}

const CONTROL_PLANE_LABEL = Object.keys(CONTROL_PLANE_NODES).find((k) => k.startsWith("node-role."))!;
const ZONE_LABEL = "topology.kubernetes.io/zone";

export const nodeName = (node: V1Node): string => node.metadata?.name ?? "";
export const roleOf = (node: V1Node): Role =>
  node.metadata?.labels?.[CONTROL_PLANE_LABEL] !== undefined ? "control-plane" : "node";
export const isReady = (node: V1Node): boolean =>
  node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** The EC2 instance of a node, from the providerID the AWS cloud controller manager sets: `aws:///<zone>/<id>`. */
export function instanceIdOf(node: V1Node): string | undefined {
  const id = node.spec?.providerID?.split("/").pop();
  return id && /^i-[0-9a-f]+$/.test(id) ? id : undefined;
}

/** Auto Scaling lifecycle states of an instance on its way out of the group (or parked in a warm pool). */
const LEAVING = /^(Terminat|Detach|Warmed)/;

function nodeFailures(node: V1Node): Failure[] {
  const name = nodeName(node);
  const who = roleOf(node) === "control-plane" ? "control-plane node" : "node";
  const failures: Failure[] = [];
  if (!isReady(node)) failures.push({ kind: "Node", name, message: `${who} "${name}" is not ready` });
  if (node.spec?.taints?.some((t) => t.key === CLOUD_UNINITIALIZED_TOLERATION.key))
    failures.push({
      kind: "Node",
      name,
      message: `${who} "${name}" is not initialised by the cloud controller manager (taint ${CLOUD_UNINITIALIZED_TOLERATION.key})`,
    });
  return failures;
}

const tag = (group: AutoScalingGroup, key: string) => group.Tags?.find((t) => t.Key === key)?.Value;

function tooFew(name: string, ready: number, minSize: number, what: string): Failure[] {
  if (ready >= minSize) return [];
  return [
    {
      kind: "InstanceGroup",
      name,
      message: `${what} did not have enough ready nodes: ${ready} of at least ${minSize}`,
    },
  ];
}

/** Each group's instances matched to nodes by instance ID. */
function byAutoScaling(groups: InstanceGroup[], asgs: AutoScalingGroup[], nodes: V1Node[]): NodeVerdict {
  const byInstance = new Map(nodes.flatMap((n) => (instanceIdOf(n) ? [[instanceIdOf(n)!, n] as const] : [])));
  // A node the cloud controller manager has not initialised has no providerID: its instance looks unjoined.
  const unmatched = nodes.some((n) => !instanceIdOf(n))
    ? ", or its node has no providerID yet (the cloud controller manager sets it)"
    : "";
  const groupOfNode = new Map<string, string>();
  const failures: Failure[] = [];
  const rows = groups.map((group): GroupRow => {
    const asg = asgs.find((a) => tag(a, INSTANCE_GROUP_TAG) === group.name);
    const row = { name: group.name, role: group.role, minSize: group.minSize, maxSize: group.maxSize };
    if (!asg) {
      failures.push({
        kind: "InstanceGroup",
        name: group.name,
        message: `no Auto Scaling group of the cluster is tagged ${INSTANCE_GROUP_TAG}=${group.name}`,
      });
      return { ...row, machines: 0, nodes: 0, ready: 0 };
    }
    const members = (asg.Instances ?? []).filter((i) => !LEAVING.test(i.LifecycleState ?? ""));
    let joined = 0;
    let ready = 0;
    for (const member of members) {
      const id = member.InstanceId ?? "";
      const node = byInstance.get(id);
      if (!node) {
        failures.push({
          kind: "Machine",
          name: id,
          message: `machine "${id}" (${member.LifecycleState}) has not joined the cluster${unmatched}`,
        });
        continue;
      }
      groupOfNode.set(nodeName(node), group.name);
      joined++;
      if (isReady(node)) ready++;
    }
    failures.push(...tooFew(group.name, ready, group.minSize, `InstanceGroup "${group.name}"`));
    return { ...row, machines: members.length, nodes: joined, ready };
  });
  return { groups: rows, nodes: nodeRows(nodes, (n) => groupOfNode.get(nodeName(n))), failures };
}

/** Without AWS: the nodes of each role against the role's groups together. */
function byRole(groups: InstanceGroup[], nodes: V1Node[]): NodeVerdict {
  const failures: Failure[] = [];
  const rows = (["control-plane", "node"] as const).flatMap((role): GroupRow[] => {
    const of = groups.filter((g) => g.role === role);
    if (of.length === 0) return [];
    const mine = nodes.filter((n) => roleOf(n) === role);
    const ready = mine.filter(isReady).length;
    const name = of.map((g) => g.name).join(",");
    const minSize = of.reduce((sum, g) => sum + g.minSize, 0);
    const what = `${role === "control-plane" ? "control-plane" : "node"} groups ${of.map((g) => g.name).join(", ")} together`;
    failures.push(...tooFew(name, ready, minSize, what));
    return [{ name, role, minSize, maxSize: of.reduce((sum, g) => sum + g.maxSize, 0), nodes: mine.length, ready }];
  });
  return { groups: rows, nodes: nodeRows(nodes, () => undefined), failures };
}

function nodeRows(nodes: V1Node[], groupOf: (n: V1Node) => string | undefined): NodeRow[] {
  return nodes.map((n) => ({
    name: nodeName(n),
    role: roleOf(n),
    group: groupOf(n),
    zone: n.metadata?.labels?.[ZONE_LABEL],
    ready: isReady(n),
  }));
}

export function judgeNodes(groups: InstanceGroup[], nodes: V1Node[], aws: AwsGroups): NodeVerdict {
  const verdict = aws.listed ? byAutoScaling(groups, aws.groups, nodes) : byRole(groups, nodes);
  return { ...verdict, failures: [...verdict.failures, ...nodes.flatMap(nodeFailures)] };
}

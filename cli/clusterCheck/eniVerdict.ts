/**
 * ENI mode: each node's ENIs and pod addresses, from its CiliumNode (cilium.io/v2, fields as Cilium's CRD
 * names them): the ENIs attached (`status.eni.enis`), the addresses the operator allocated to the node
 * (`spec.ipam.pool`) and those pods use (`status.ipam.used`). A node with no free address starts no new pod;
 * one with no CiliumNode has no Cilium agent that registered it. Pure.
 */
import type { V1Node } from "@kubernetes/client-node";
import type { CiliumNode } from "./clusterState";
import type { Failure } from "./failure";
import { nodeName } from "./nodeVerdict";

export interface EniRow {
  node: string;
  enis: number;
  /** Addresses allocated to the node, in use, and free. */
  ips: number;
  used: number;
  free: number;
}

export interface EniVerdict {
  rows: EniRow[];
  failures: Failure[];
}

export function eniRow(ciliumNode: CiliumNode): EniRow {
  const pool = Object.keys(ciliumNode.spec?.ipam?.pool ?? {});
  const used = new Set(Object.keys(ciliumNode.status?.ipam?.used ?? {}));
  return {
    node: ciliumNode.metadata.name,
    enis: Object.keys(ciliumNode.status?.eni?.enis ?? {}).length,
    ips: pool.length,
    used: used.size,
    free: pool.filter((ip) => !used.has(ip)).length,
  };
}

export function judgeEni(nodes: V1Node[], ciliumNodes: CiliumNode[]): EniVerdict {
  const failures: Failure[] = [];
  const rows: EniRow[] = [];
  for (const node of nodes) {
    const name = nodeName(node);
    const ciliumNode = ciliumNodes.find((c) => c.metadata.name === name);
    const failure = (message: string) => failures.push({ kind: "CiliumNode", name, message });
    if (!ciliumNode) {
      failure(`node "${name}" has no CiliumNode: no Cilium agent has registered it`);
      continue;
    }
    const row = eniRow(ciliumNode);
    rows.push(row);
    if (row.ips === 0) failure(`node "${name}" has no pod address allocated yet (${row.enis} ENIs)`);
    else if (row.free === 0)
      failure(`node "${name}" is out of pod addresses: ${row.used} of ${row.ips} in use on ${row.enis} ENIs`);
    const error = ciliumNode.status?.ipam?.["operator-status"]?.error;
    if (error) failure(`the Cilium operator reports: ${error}`);
  }
  return { rows, failures };
}

/**
 * The CiliumNode Cilium's agent writes for its node in ENI mode, which Cilium's operator allocates ENIs and
 * addresses for. The agent is not in the box's images (docs/development.md, "The box"), so its object is
 * written here with every field the operator reads, as the agent of v1.20.2 writes them (a run of that agent on
 * a box node showed the same; the agent's labels, owner reference and boot id the operator does not read):
 * - from pkg/nodediscovery/eni/eni.go: the instance's id, type, zone and subnet from instance metadata, the VPC,
 *   and cilium-config's ENI options, unset ones at the defaults of pkg/nodediscovery/cell.go (maps and zero
 *   counts are left out, as the agent's JSON leaves them);
 * - from the ENI multi-pool allocator (pkg/ipam/eni.go, newENIMultiPoolAllocators): the default pool's demand,
 *   defaults.IPAMPreAllocation (8) addresses. A v1.19 agent wrote no demand; the operator tells the two apart by
 *   it (operator/pkg/ipam/nodemanager/node.go, isMultiPoolNodeLocked).
 * The operator then fills its status: the ENIs and the secondary addresses the agent's allocator reads.
 */
export interface CiliumNodeInputs {
  nodeName: string;
  instanceId: string;
  instanceType: string;
  availabilityZone: string;
  vpcId: string;
  subnetId: string;
  nodeIp: string;
  /** cilium-config's data. */
  config: Record<string, string>;
}

/** The pre-allocation of the agent's ENI multi-pool allocator (pkg/defaults/defaults.go, IPAMPreAllocation). */
export const AGENT_PRE_ALLOCATION = 8;

/** `k=v,k2=v2` (Cilium's map flags) as an object, or nothing when unset. */
function tagMap(flag: string | undefined): Record<string, string> | undefined {
  if (!flag) return undefined;
  return Object.fromEntries(flag.split(",").map((pair) => pair.split("=", 2) as [string, string]));
}

export function ciliumNode(inputs: CiliumNodeInputs): Record<string, unknown> {
  const { config } = inputs;
  const int = (key: string) => (config[key] && Number(config[key]) !== 0 ? Number(config[key]) : undefined);
  const bool = (key: string, fallback: boolean) => (config[key] ? config[key] === "true" : fallback);
  return {
    apiVersion: "cilium.io/v2",
    kind: "CiliumNode",
    metadata: { name: inputs.nodeName },
    spec: {
      "instance-id": inputs.instanceId,
      addresses: [{ type: "InternalIP", ip: inputs.nodeIp }],
      eni: {
        "vpc-id": inputs.vpcId,
        "instance-type": inputs.instanceType,
        "availability-zone": inputs.availabilityZone,
        "node-subnet-id": inputs.subnetId,
        "first-interface-index": int("eni-first-interface-index") ?? 0,
        "use-primary-address": bool("eni-use-primary-address", false),
        "disable-prefix-delegation": bool("eni-disable-prefix-delegation", false),
        "delete-on-termination": bool("eni-delete-on-termination", true),
        "subnet-tags": tagMap(config["eni-subnet-tags"]),
        "security-group-tags": tagMap(config["eni-security-group-tags"]),
      },
      ipam: {
        "min-allocate": int("ipam-min-allocate"),
        "pre-allocate": int("ipam-pre-allocate"),
        pools: { requested: [{ pool: "default", needed: { "ipv4-addrs": AGENT_PRE_ALLOCATION } }] },
      },
    },
  };
}

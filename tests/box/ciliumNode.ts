/**
 * The CiliumNode Cilium's agent writes for its node in ENI mode, which Cilium's operator allocates ENIs and
 * addresses for. The agent cannot run in the box (docs/development.md, "The box"), so its object is written
 * here, field for field as the agent of v1.20.2 fills it (pkg/nodediscovery/eni/eni.go, and its options in pkg/nodediscovery/cell.go:
 * the instance's id, type, zone and VPC from instance metadata, the rest from cilium-config's agent options,
 * unset ones at pkg/defaults' values), the operator then filling its status.
 */
export interface CiliumNodeInputs {
  nodeName: string;
  instanceId: string;
  instanceType: string;
  availabilityZone: string;
  vpcId: string;
  nodeIp: string;
  /** cilium-config's data. */
  config: Record<string, string>;
}

/** `k=v,k2=v2` (Cilium's map flags) as an object. */
function tagMap(flag: string | undefined): Record<string, string> {
  if (!flag) return {};
  return Object.fromEntries(flag.split(",").map((pair) => pair.split("=", 2) as [string, string]));
}

export function ciliumNode(inputs: CiliumNodeInputs): Record<string, unknown> {
  const { config } = inputs;
  const int = (key: string, fallback: number) => (config[key] ? Number(config[key]) : fallback);
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
        "first-interface-index": int("eni-first-interface-index", 0),
        "use-primary-address": bool("eni-use-primary-address", false),
        "disable-prefix-delegation": bool("eni-disable-prefix-delegation", false),
        "delete-on-termination": bool("eni-delete-on-termination", true),
        "subnet-tags": tagMap(config["eni-subnet-tags"]),
        "security-group-tags": tagMap(config["eni-security-group-tags"]),
      },
      ipam: {
        "min-allocate": int("ipam-min-allocate", 0),
        "pre-allocate": int("ipam-pre-allocate", 0),
      },
    },
  };
}

/**
 * The subnet planner: from the VPC CIDR, the zones and the topology, the CIDR of every subnet.
 *
 * The VPC is cut into eight equal slots. `private`: zone i's private subnet is slot i (1/8 of the VPC, where
 * nodes and, in ENI mode, every pod take their addresses); the last slot is cut into eight again and zone
 * i's utility subnet (NAT gateway, public load balancers) is the i-th of those. `public`: zone i's public
 * subnet is slot i. Slots not used (zones 7+ are not allowed) stay free for growth.
 */
import { Cidr, formatCidr, parseCidr, subnet } from "../../spec/cidr";
import type { Topology } from "../../spec/types";

export type SubnetRole = "private" | "utility" | "public";

export interface PlannedSubnet {
  role: SubnetRole;
  zone: string;
  cidr: string;
}

/** AWS allows subnets from /16 to /28. */
export const SMALLEST_SUBNET_PREFIX = 28;
/** AWS reserves the first four and the last address of every subnet. */
export const AWS_RESERVED_PER_SUBNET = 5;

const SLOT_BITS = 3;
export const MAX_ZONES = 2 ** SLOT_BITS - 2;

export type SubnetPlan = { subnets: PlannedSubnet[] } | { error: string };

export function planSubnets(vpcCidr: string, zones: readonly string[], topology: Topology): SubnetPlan {
  const vpc = parseCidr(vpcCidr);
  if (!vpc) return { error: `not an IPv4 CIDR` };
  if (zones.length > MAX_ZONES) return { error: `the plan has room for at most ${MAX_ZONES} zones` };
  const slotPrefix = vpc.prefix + SLOT_BITS;
  const utilityPrefix = slotPrefix + SLOT_BITS;
  const smallest = topology === "private" ? utilityPrefix : slotPrefix;
  if (smallest > SMALLEST_SUBNET_PREFIX) {
    const largest = SMALLEST_SUBNET_PREFIX - (smallest - vpc.prefix);
    return {
      error:
        `a /${vpc.prefix} VPC is too small for the ${topology} topology: its smallest subnets would be /${smallest}, ` +
        `below AWS's minimum of /${SMALLEST_SUBNET_PREFIX}; use a /${largest} or larger`,
    };
  }
  const subnets: PlannedSubnet[] = [];
  const utilitySlot: Cidr = subnet(vpc, slotPrefix, 2 ** SLOT_BITS - 1);
  zones.forEach((zone, i) => {
    const slot = formatCidr(subnet(vpc, slotPrefix, i));
    if (topology === "public") {
      subnets.push({ role: "public", zone, cidr: slot });
    } else {
      subnets.push({ role: "private", zone, cidr: slot });
      subnets.push({ role: "utility", zone, cidr: formatCidr(subnet(utilitySlot, utilityPrefix, i)) });
    }
  });
  return { subnets };
}

/** Addresses a subnet gives to instances and pods. */
export function usableAddresses(cidr: string): number {
  const parsed = parseCidr(cidr);
  return parsed ? 2 ** (32 - parsed.prefix) - AWS_RESERVED_PER_SUBNET : 0;
}

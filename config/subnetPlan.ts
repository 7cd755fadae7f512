/**
 * The subnet planner: from the VPC CIDR, the zones and the topology, the CIDR of every subnet.
 *
 * The VPC is cut into eight equal slots, and each zone owns the slot of its letter (`…a` slot 0, `…b` slot
 * 1, … `…g` slot 6), so a zone's CIDRs never depend on the other zones: adding a zone creates its subnets,
 * removing one deletes its subnets, reordering moves nothing. `private`: a zone's private subnet is its slot
 * (1/8 of the VPC, where nodes and, in ENI mode, every pod take their addresses); the last slot is cut into
 * eight again and the zone's utility subnet (NAT gateway, public load balancers) is the one of its letter.
 * `public`: a zone's public subnet is its slot.
 */
import { Cidr, formatCidr, parseCidr, subnet } from "./cidr";
import type { Topology } from "./types";

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
/** Zone letters with a slot: the last slot holds the utility subnets. */
export const ZONE_LETTERS = "abcdefg";

/** The slot a zone owns: the position of its last letter in `ZONE_LETTERS`, or -1. */
export const zoneSlot = (zone: string): number => ZONE_LETTERS.indexOf(zone.slice(-1));

/** A plan, or why there is none (with the longest VPC prefix that would fit, when size is why). */
export type SubnetPlan = { subnets: PlannedSubnet[] } | { error: string; largestPrefix?: number };

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
      largestPrefix: largest,
    };
  }
  const noSlot = zones.filter((z) => zoneSlot(z) < 0);
  if (noSlot.length) return { error: `zones must end in a letter a to g to own a subnet slot: ${noSlot.join(", ")}` };
  const letters = zones.map((z) => z.slice(-1));
  const shared = zones.filter((z, i) => letters.indexOf(z.slice(-1)) !== i);
  if (shared.length)
    return { error: `two zones end in the same letter, so they would share subnets: ${shared.join(", ")}` };
  const subnets: PlannedSubnet[] = [];
  const utilitySlot: Cidr = subnet(vpc, slotPrefix, 2 ** SLOT_BITS - 1);
  zones.forEach((zone) => {
    const i = zoneSlot(zone);
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

/** Rules on the VPC, zones, address ranges and API access list. */
import { planSubnets, usableAddresses, ZONE_LETTERS, zoneSlot } from "../subnetPlan";
import { Cidr, isCanonical, overlaps, parseCidr } from "../cidr";
import { eniSubnetAddressesPerNode, hostNetworkPods } from "../../catalogs/instanceTypes";
import type { ClusterSpec } from "../types";
import { API_LB_OWN_INBOUND_RULES, INBOUND_RULES_PER_SECURITY_GROUP } from "../quotas";
import { FieldError, forbidden, index, invalid, required, tooMany } from "./fieldErrors";

/** Parses a CIDR field, reporting malformed, non-canonical or out-of-range prefixes. */
function checkCidr(
  errors: FieldError[],
  path: string,
  text: string,
  minPrefix: number,
  maxPrefix: number,
): Cidr | undefined {
  const cidr = parseCidr(text);
  if (!cidr) {
    errors.push(invalid(path, text, "must be an IPv4 CIDR such as 10.0.0.0/16"));
    return undefined;
  }
  if (!isCanonical(cidr)) {
    errors.push(invalid(path, text, "host bits must be zero (the network address of the range)"));
    return undefined;
  }
  if (cidr.prefix < minPrefix || cidr.prefix > maxPrefix) {
    errors.push(invalid(path, text, `prefix length must be between /${minPrefix} and /${maxPrefix}`));
    return undefined;
  }
  return cidr;
}

export function validateNetwork(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  const { network } = spec;
  const eni = spec.networking.cilium.ipam === "eni";

  const vpc = checkCidr(errors, "network.cidr", network.cidr, 16, 24);
  const pods = checkCidr(errors, "network.podCIDR", network.podCIDR, 8, 24);
  const services = checkCidr(errors, "network.serviceCIDR", network.serviceCIDR, 12, 24);
  if (vpc && pods && !eni && overlaps(vpc, pods)) {
    errors.push(
      forbidden(
        "network.podCIDR",
        `must not overlap the VPC ${network.cidr} (only ENI IPAM takes pod addresses from the VPC)`,
      ),
    );
  }
  if (vpc && services && overlaps(vpc, services)) {
    errors.push(forbidden("network.serviceCIDR", `must not overlap the VPC ${network.cidr}`));
  }
  if (pods && services && overlaps(pods, services)) {
    errors.push(forbidden("network.serviceCIDR", `must not overlap network.podCIDR ${network.podCIDR}`));
  }

  const zoneErrors = validateZones(spec);
  errors.push(...zoneErrors);
  if (vpc && network.availabilityZones.length > 0 && zoneErrors.length === 0) errors.push(...validatePlan(spec));

  errors.push(...validateApiAccess(spec));
  return errors;
}

/** An address from the documentation range (RFC 5737), standing for the user's own. */
const EXAMPLE_ACCESS = "203.0.113.7/32";

/**
 * Who may reach the API: nobody unless the stack says so (never the whole internet by default), and no
 * more CIDRs than the load balancer's security group holds rules for.
 */
function validateApiAccess(spec: ClusterSpec): FieldError[] {
  const { access, loadBalancer } = spec.api;
  if (access.length === 0) {
    const why =
      loadBalancer === "public"
        ? "the public API load balancer admits no one by default: add your own address (0.0.0.0/0 admits the whole internet and must be written out)"
        : spec.addons.applyFrom === "deployer"
          ? "addons.applyFrom: deployer applies the add-ons through the API from the machine running pulumi up: add its address"
          : undefined;
    return why ? [{ ...required("api.access", why), example: EXAMPLE_ACCESS }] : [];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  access.forEach((cidr, i) => {
    const path = index("api.access", i);
    if (checkCidr(errors, path, cidr, 0, 32) && seen.has(cidr)) errors.push(invalid(path, cidr, "duplicate entry"));
    seen.add(cidr);
  });
  const room = INBOUND_RULES_PER_SECURITY_GROUP - API_LB_OWN_INBOUND_RULES;
  if (access.length > room) {
    const excess = access
      .map((_, i) => index("api.access", i))
      .slice(room)
      .reverse();
    errors.push(
      tooMany(
        "api.access",
        access.length,
        room,
        `the API load balancer's security group holds ${INBOUND_RULES_PER_SECURITY_GROUP} inbound rules (AWS's default quota), ${API_LB_OWN_INBOUND_RULES} of them the program's own; merge CIDRs or remove some`,
        excess,
      ),
    );
  }
  return errors;
}

function validateZones(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  spec.network.availabilityZones.forEach((zone, i) => {
    const path = index("network.availabilityZones", i);
    if (seen.has(zone)) errors.push(invalid(path, zone, "duplicate zone"));
    else if (spec.region && !new RegExp(`^${spec.region}[a-z]$`).test(zone)) {
      errors.push(invalid(path, zone, `not an availability zone of the stack's region ${spec.region} (aws:region)`));
    } else if (zoneSlot(zone) < 0) {
      errors.push(
        invalid(path, zone, `has no subnet slot: zones ending in a to ${ZONE_LETTERS.slice(-1)} are supported`),
      );
    }
    seen.add(zone);
  });
  return errors;
}

/** The subnet plan must fit the VPC, and in ENI mode each private subnet must hold its zone's pods. */
function validatePlan(spec: ClusterSpec): FieldError[] {
  const { network } = spec;
  const plan = planSubnets(network.cidr, network.availabilityZones, spec.topology);
  if ("error" in plan) return [invalid("network.cidr", network.cidr, plan.error)];
  if (spec.networking.cilium.ipam !== "eni") return [];

  const zones = network.availabilityZones;
  const hostNetwork = hostNetworkPods(spec.kubeProxy.enabled);
  const short: string[] = [];
  zones.forEach((zone, z) => {
    const controlPlaneNodes = spec.controlPlane.count > z ? 1 : 0;
    let needed = controlPlaneNodes * eniSubnetAddressesPerNode(spec.controlPlane.instanceType, hostNetwork);
    for (const group of spec.nodeGroups) {
      const nodesHere = Math.ceil(group.maxSize / zones.length);
      needed += nodesHere * eniSubnetAddressesPerNode(group.instanceType, hostNetwork);
    }
    const subnet = plan.subnets.find((s) => s.zone === zone && s.role === "private");
    if (!subnet) return;
    const available = usableAddresses(subnet.cidr);
    if (needed > available)
      short.push(`${zone} (${subnet.cidr}) needs ${needed} addresses at maxSize, has ${available}`);
  });
  if (short.length === 0) return [];
  return [
    invalid(
      "network.cidr",
      network.cidr,
      `in ENI mode each zone's private subnet must hold every node and pod placed there: ${short.join("; ")}; ` +
        "use a larger VPC or fewer or smaller nodes",
    ),
  ];
}

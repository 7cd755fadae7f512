/** Rules on the VPC, zones, address ranges and API access list. */
import { planSubnets, usableAddresses, ZONE_LETTERS, zoneSlot } from "../subnetPlan";
import { Cidr, formatCidr, isCanonical, mask, overlaps, parseCidr } from "../cidr";
import { eniSubnetAddressesPerNode, hostNetworkPods } from "../../catalogs/instanceTypes";
import { recordedZones } from "../../catalogs/availabilityZones";
import { REGIONS } from "../../catalogs/awsEnums";
import type { ClusterSpec } from "../types";
import { API_LB_OWN_INBOUND_RULES, INBOUND_RULES_PER_SECURITY_GROUP } from "../quotas";
import {
  child,
  FieldError,
  forbidden,
  index,
  invalid,
  mustRemove,
  required,
  tooMany,
  withSuggestion,
} from "./fieldErrors";
import { eniMode } from "../eniMode";

/** The VPC prefixes allowed: AWS allows /16 to /28, and the subnet plan needs a /24 at most. */
const VPC_PREFIX = { largest: 16, smallest: 24 };

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
  // The fix for either problem: the range of the address at the nearest allowed prefix.
  const fitting = withPrefix(cidr, Math.min(Math.max(cidr.prefix, minPrefix), maxPrefix));
  if (!isCanonical(cidr)) {
    errors.push(
      withSuggestion(invalid(path, text, "host bits must be zero (the network address of the range)"), fitting),
    );
    return undefined;
  }
  if (cidr.prefix < minPrefix || cidr.prefix > maxPrefix) {
    errors.push(
      withSuggestion(invalid(path, text, `prefix length must be between /${minPrefix} and /${maxPrefix}`), fitting),
    );
    return undefined;
  }
  return cidr;
}

export function validateNetwork(spec: ClusterSpec): FieldError[] {
  const errors: FieldError[] = [];
  const { network } = spec;
  const eni = eniMode(spec.networking.cilium);

  const vpcErrors: FieldError[] = [];
  const vpc = checkCidr(vpcErrors, "network.cidr", network.cidr, VPC_PREFIX.largest, VPC_PREFIX.smallest);
  // A VPC out of range is set to one that also holds the subnet plan and, in ENI mode, the pods: the
  // nearest allowed prefix alone may be refused next by those rules.
  const parsed = parseCidr(network.cidr);
  const holding = parsed && !vpc ? fittingVpc(spec, parsed) : undefined;
  errors.push(...vpcErrors.map((e) => (holding && e.suggested ? withSuggestion(e, holding) : e)));
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
  if (vpc && network.availabilityZones.length > 0 && zoneErrors.length === 0) errors.push(...validatePlan(spec, vpc));

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
    if (loadBalancer === "public") {
      const why =
        "the public API load balancer admits no one by default: add your own address (0.0.0.0/0 admits the whole internet and must be written out)";
      return [withSuggestion(required("api.access", why), EXAMPLE_ACCESS, "api.access[0]")];
    }
    // An internal load balancer is out of the deploying machine's reach unless it is in the VPC's network:
    // the fix that works wherever it runs is the control plane applying the add-ons itself.
    if (spec.addons.applyFrom === "deployer") {
      const why =
        "addons.applyFrom: deployer applies the add-ons through the internal API load balancer from the machine running pulumi up: let the control plane apply them, or add that machine's address if it reaches the VPC";
      return [withSuggestion(required("api.access", why), "controlPlane", "addons.applyFrom")];
    }
    return [];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  access.forEach((cidr, i) => {
    const path = index("api.access", i);
    if (checkCidr(errors, path, cidr, 0, 32) && seen.has(cidr))
      errors.push(mustRemove(invalid(path, cidr, "duplicate entry")));
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
  const { availabilityZones, uncatalogedZones } = spec.network;
  // Zones are checked against a region that exists; aws:region's own error says what to fix first.
  const region = REGIONS.has(spec.region) ? spec.region : "";
  const inRegion = (zone: string) => !region || new RegExp(`^${region}[a-z]$`).test(zone);
  const notInRegion = (path: string, zone: string) =>
    invalid(path, zone, `not an availability zone of the stack's region ${region} (aws:region)`);
  const recorded = recordedZones(region);
  // Each unrecorded zone's fix takes a replacement of its own, so that applying every printed fix leaves no
  // duplicates; each acknowledgement appends to uncatalogedZones, which works run alone as printed.
  const replacements = recorded.filter((z) => !availabilityZones.includes(z));
  const acknowledgement = index("network.uncatalogedZones", uncatalogedZones.length);
  const seen = new Set<string>();
  /** An error whose fix puts an unused zone of the region in this place, or removes it when none is left. */
  const replace = (e: FieldError) => {
    const replacement = replacements.shift();
    return replacement ? withSuggestion(e, replacement) : mustRemove(e);
  };
  availabilityZones.forEach((zone, i) => {
    const path = index("network.availabilityZones", i);
    if (seen.has(zone)) errors.push(mustRemove(invalid(path, zone, "duplicate zone")));
    else if (!inRegion(zone)) errors.push(replace(notInRegion(path, zone)));
    // Before the catalog: acknowledging a zone that has no subnet slot would only trade one error for this.
    else if (zoneSlot(zone) < 0) {
      const slots = `zones ending in a to ${ZONE_LETTERS.slice(-1)} are supported`;
      errors.push(replace(invalid(path, zone, `has no subnet slot: ${slots}`)));
    } else if (region && !recorded.includes(zone) && !uncatalogedZones.includes(zone)) {
      errors.push(unrecordedZone(region, path, zone, recorded, acknowledgement, replace));
    }
    seen.add(zone);
  });
  uncatalogedZones.forEach((zone, i) => {
    const path = index("network.uncatalogedZones", i);
    if (!inRegion(zone)) errors.push(notInRegion(path, zone));
    else if (recorded.includes(zone))
      errors.push(mustRemove(invalid(path, zone, "the zone catalog records this zone already")));
  });
  return errors;
}

/**
 * A zone the catalog does not record: most likely a typo, fixed by a zone of the region not yet used; a
 * zone AWS opened since the catalog was written is let through by listing it in uncatalogedZones.
 */
function unrecordedZone(
  region: string,
  path: string,
  zone: string,
  recorded: string[],
  acknowledgement: string,
  replace: (e: FieldError) => FieldError,
): FieldError {
  const check = `aws ec2 describe-availability-zones --region ${region}`;
  const acknowledge = `pulumi config set --path '${acknowledgement}' ${zone}`;
  if (recorded.length === 0) {
    const detail = `the zone catalog records no zones of ${region}: check that the zone exists (${check}) and run ${acknowledge}`;
    return withSuggestion(invalid(path, zone, detail), zone, acknowledgement);
  }
  const detail =
    `${region} has no zone ${zone}: its zones are ${recorded.join(", ")} (catalogs/availabilityZones.ts); ` +
    `for a zone AWS opened since, check it (${check}) and run ${acknowledge}`;
  return replace(invalid(path, zone, detail));
}

/** The range of a CIDR's address at another prefix (its network address masked to it). */
function withPrefix(cidr: Cidr, prefix: number): string {
  return formatCidr({ base: (cidr.base & mask(prefix)) >>> 0, prefix });
}

/** The subnet plan must fit the VPC, and in ENI mode each private subnet must hold its zone's pods. */
function validatePlan(spec: ClusterSpec, vpc: Cidr): FieldError[] {
  const { network } = spec;
  const plan = planSubnets(network.cidr, network.availabilityZones, spec.topology);
  if ("error" in plan) {
    const e = invalid("network.cidr", network.cidr, plan.error);
    return [plan.largestPrefix === undefined ? e : withSuggestion(e, withPrefix(vpc, plan.largestPrefix))];
  }
  if (!eniMode(spec.networking.cilium)) return [];
  const short = eniShortfall(spec, network.cidr);
  if (short.length === 0) return [];
  const detail = `in ENI mode each zone's private subnet must hold every node and pod placed there: ${short.join("; ")}`;
  // The longest prefix at which the plan holds every pod, if any VPC allowed (/16 at most) does.
  for (let prefix = vpc.prefix - 1; prefix >= VPC_PREFIX.largest; prefix--) {
    if (eniShortfall(spec, withPrefix(vpc, prefix)).length === 0) {
      return [
        withSuggestion(
          invalid("network.cidr", network.cidr, `${detail}; a /${prefix} VPC holds them`),
          withPrefix(vpc, prefix),
        ),
      ];
    }
  }
  const largest =
    vpc.prefix === VPC_PREFIX.largest
      ? ` (a /${VPC_PREFIX.largest} VPC is the largest allowed)`
      : `, even in a /${VPC_PREFIX.largest} VPC (the largest allowed)`;
  const e = invalid(
    "network.cidr",
    network.cidr,
    `${detail}${largest}: use fewer nodes (nodeGroups[*].maxSize) or smaller instance types`,
  );
  const fewer = fittingMaxSize(spec);
  return [fewer ? withSuggestion(e, String(fewer.maxSize), child(index("nodeGroups", fewer.group), "maxSize")) : e];
}

/**
 * The longest allowed prefix of CIDR's address whose VPC holds the subnet plan and, in ENI mode, every
 * zone's nodes and pods; none when no allowed VPC does.
 */
function fittingVpc(spec: ClusterSpec, cidr: Cidr): string | undefined {
  for (let prefix = Math.min(cidr.prefix, VPC_PREFIX.smallest); prefix >= VPC_PREFIX.largest; prefix--) {
    const candidate = withPrefix(cidr, prefix);
    if ("error" in planSubnets(candidate, spec.network.availabilityZones, spec.topology)) continue;
    if (!eniMode(spec.networking.cilium) || eniShortfall(spec, candidate).length === 0) return candidate;
  }
  return undefined;
}

/** The largest maxSize of the node group with the most nodes at which every zone's pods fit, if one does. */
function fittingMaxSize(spec: ClusterSpec): { group: number; maxSize: number } | undefined {
  const groups = spec.nodeGroups;
  const group = groups.reduce((best, g, i) => (g.maxSize > groups[best].maxSize ? i : best), 0);
  for (let maxSize = groups[group].maxSize - 1; maxSize >= Math.max(1, groups[group].minSize); maxSize--) {
    const nodeGroups = groups.map((g, i) => (i === group ? { ...g, maxSize } : g));
    if (eniShortfall({ ...spec, nodeGroups }, spec.network.cidr).length === 0) return { group, maxSize };
  }
  return undefined;
}

/** Per zone whose private subnet cannot hold its nodes and pods at maxSize, what it needs and has. */
function eniShortfall(spec: ClusterSpec, cidr: string): string[] {
  const plan = planSubnets(cidr, spec.network.availabilityZones, spec.topology);
  if ("error" in plan) return [plan.error];
  const zones = spec.network.availabilityZones;
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
  return short;
}

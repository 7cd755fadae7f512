/**
 * The box's network: a network namespace of its own holding one bridge, on which the host side has the VPC
 * router's address of each subnet (the subnet's first address, as in a VPC; the emulator answers AWS and
 * pkgs.k8s.io there), the VPC's DNS address (its second; nothing answers names from outside the box), the
 * internal API load balancer's address (the first subnet's third, which AWS and moto never give an
 * instance), and 169.254.169.254 (instance metadata). Nodes attach to the bridge. No route leaves the namespace, and
 * deleting it removes the bridge, the addresses and every rule in it.
 */
import { runSync } from "./run";

export const BRIDGE = "box0";
export const METADATA_ADDRESS = "169.254.169.254";

export interface BoxNetwork {
  namespace: string;
  /** The VPC router's address in each subnet, by the subnet's CIDR. */
  routers: Record<string, string>;
  loadBalancer: string;
  dns: string;
}

/** The Nth address of CIDR (0 is the network's own). */
export function addressIn(cidr: string, n: number): string {
  const [base] = cidr.split("/");
  const value = base.split(".").reduce((v, octet) => v * 256 + Number(octet), 0) + n;
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
}

export function createNetwork(namespace: string, vpcCidr: string, subnets: string[]): BoxNetwork {
  const ip = (...args: string[]) => runSync("ip", ["-n", namespace, ...args]);
  runSync("ip", ["netns", "add", namespace]);
  ip("link", "set", "lo", "up");
  ip("link", "add", BRIDGE, "type", "bridge");
  ip("link", "set", BRIDGE, "up");
  const routers: Record<string, string> = {};
  for (const cidr of subnets) {
    routers[cidr] = addressIn(cidr, 1);
    ip("addr", "add", `${routers[cidr]}/${cidr.split("/")[1]}`, "dev", BRIDGE);
  }
  const loadBalancer = addressIn(subnets[0], 3);
  const dns = addressIn(vpcCidr, 2);
  for (const address of [loadBalancer, dns]) ip("addr", "add", `${address}/32`, "dev", BRIDGE);
  ip("addr", "add", `${METADATA_ADDRESS}/32`, "dev", BRIDGE);
  // Pods' packets between nodes pass through the namespace's routes (podRoutes): forward them.
  runSync("ip", ["netns", "exec", namespace, "sysctl", "-qw", "net.ipv4.ip_forward=1"]);
  return { namespace, routers, loadBalancer, dns };
}

/** A route in the namespace to a node's pod range through the node. */
export function addPodRoute(network: BoxNetwork, podCidr: string, nodeAddress: string): void {
  runSync("ip", ["-n", network.namespace, "route", "replace", podCidr, "via", nodeAddress]);
}

export function deleteNetwork(namespace: string): void {
  runSync("ip", ["netns", "delete", namespace], { allowFailure: true });
}

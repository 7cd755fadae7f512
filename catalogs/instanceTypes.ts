/**
 * EC2 instance types' facts (catalogs/recorded/instanceTypeFactsRecord.ts, from EC2's DescribeInstanceTypes),
 * and the max-pods rule for ENI mode (kOps's, less the addresses Cilium reserves). Nodes compute the same rule
 * at boot from `ec2:DescribeInstanceTypes`; the record serves validation offline (a control plane kubeadm
 * refuses, a type that runs only on Dedicated Hosts, the subnet-capacity check), which assumes 110 pods for a
 * type it lacks.
 */
import { INSTANCE_TYPE_FACTS } from "./recorded/instanceTypeFactsRecord";

/** One type: vCPUs, memory (MiB), network interfaces, IPv4 addresses per interface, on Dedicated Hosts only. */
export type InstanceTypeFact = readonly [
  vcpus: number,
  memoryMiB: number,
  enis: number,
  ipv4PerEni: number,
  hostOnly: 0 | 1,
];

/** What EC2 reports of an instance type, or undefined for one the record lacks. */
export function instanceTypeFacts(instanceType: string) {
  const fact = INSTANCE_TYPE_FACTS[instanceType];
  if (!fact) return undefined;
  const [vcpus, memoryMiB, enis, ipv4PerEni, hostOnly] = fact;
  return { vcpus, memoryMiB, enis, ipv4PerEni, dedicatedHostsOnly: hostOnly === 1 };
}

/** Every recorded type's name. */
export const recordedInstanceTypes = (): string[] => Object.keys(INSTANCE_TYPE_FACTS);

/** Max pods when nothing about the instance type is known: the kubelet's default. */
export const DEFAULT_MAX_PODS = 110;

/**
 * Addresses of the ENI pool Cilium keeps for itself on every node in ENI mode: its router (`cilium_host`)
 * and its health endpoint. They compete with pods for the node's ENI addresses.
 */
export const CILIUM_RESERVED_IPS = 2;

/**
 * Pods on every node's host network, which take no ENI address: the Cilium agent, and kube-proxy when it
 * runs. (kOps allows two always; without kube-proxy that over-commits by one.)
 */
export function hostNetworkPods(kubeProxyEnabled: boolean): number {
  return 1 + (kubeProxyEnabled ? 1 : 0);
}

/**
 * Max pods in ENI mode: every ENI's addresses but its primary, less Cilium's reserved ones, plus the
 * host-network pods; at most 110. (kOps's `ENIs × (IPv4 per ENI − 1) + 2` leaves out Cilium's reservation
 * and over-commits by it: the last pods would wait for addresses forever.)
 */
export function maxPodsForEni(enis: number, ipv4PerEni: number, hostNetwork: number): number {
  return Math.min(DEFAULT_MAX_PODS, enis * (ipv4PerEni - 1) - CILIUM_RESERVED_IPS + hostNetwork);
}

/** Max pods of an instance type in ENI mode, or 110 when the type is not in the table. */
export function eniMaxPods(instanceType: string, hostNetwork: number): number {
  const facts = instanceTypeFacts(instanceType);
  return facts ? maxPodsForEni(facts.enis, facts.ipv4PerEni, hostNetwork) : DEFAULT_MAX_PODS;
}

/**
 * Cilium's pre-allocate watermark in ENI mode: the operator keeps this many pool addresses free on every
 * node beyond those in use (`IPAMPreAllocation`, Cilium's pkg/defaults; "pre-allocate" default 8 in its ENI
 * docs), up to what the node's ENIs can hold.
 */
export const CILIUM_ENI_PRE_ALLOCATE = 8;

/** The most IPv4 addresses any instance type's ENI holds (AWS's limit for the largest types). */
export const MAX_IPV4_PER_ENI = 50;

/**
 * Addresses one node takes from its subnet at most in ENI mode, with max pods running: one per pod on the
 * pod network, Cilium's reserved ones and its pre-allocate watermark (as far as the node's ENIs hold them),
 * and the primary address of every ENI that holds them (the first being the node's own). For a type the
 * table lacks, whose ENIs are unknown: the same pool with no ENI bound, held on ENIs of the largest size,
 * and never fewer primaries than 110 pods need on them (⌈110 / 49⌉ = 3).
 */
export function eniSubnetAddressesPerNode(instanceType: string, hostNetwork: number): number {
  const demand = eniMaxPods(instanceType, hostNetwork) - hostNetwork + CILIUM_RESERVED_IPS + CILIUM_ENI_PRE_ALLOCATE;
  const facts = instanceTypeFacts(instanceType);
  if (!facts) {
    const perEni = MAX_IPV4_PER_ENI - 1;
    return demand + Math.max(Math.ceil(DEFAULT_MAX_PODS / perEni), Math.ceil(demand / perEni));
  }
  const { enis, ipv4PerEni } = facts;
  const pool = Math.min(demand, enis * (ipv4PerEni - 1));
  return pool + Math.ceil(pool / (ipv4PerEni - 1));
}

/** Graviton families (`m7g`, `t4g`, `c7gn`, ...) run arm64 images. */
export function architectureOf(instanceType: string): "arm64" | "x86_64" {
  return /^[a-z]+\d+g[a-z]*\./.test(instanceType) ? "arm64" : "x86_64";
}

/**
 * The security-group rules of the cluster, as narrow as a working cluster allows, each with the reason
 * it exists. Pure: the spec in, a list of rules out; ClusterNetwork declares one resource per rule.
 */
import type { ClusterSpec } from "../../config/types";
import {
  API_LISTENER,
  CILIUM_HEALTH,
  CILIUM_TUNNEL,
  ETCD_CLIENT,
  ETCD_METRICS,
  KUBE_APISERVER,
  KUBELET_API,
} from "../wellKnownPorts";

export type GroupRole = "controlPlane" | "nodes" | "apiLb";

export interface SecurityRule {
  /** Logical name, unique in the cluster. */
  name: string;
  group: GroupRole;
  direction: "ingress" | "egress";
  /** `tcp`, `udp`, `icmp` or `-1` (all). */
  protocol: string;
  fromPort?: number;
  toPort?: number;
  /** Another group of the cluster, or a CIDR. */
  peer: { group: GroupRole } | { cidr: string };
  description: string;
}

/** An `api.access` rule is named by the CIDR it admits (`/` as `-`), never by its place in the list. */
export const apiAccessRuleName = (cidr: string) => `api-lb-https-from-access-${cidr.replace("/", "-")}`;

/** etcd's client, peer and metrics ports on the control plane: never reachable from workers or their pods. */
const ETCD_PORTS = { first: ETCD_CLIENT, last: ETCD_METRICS };

function between(a: GroupRole, b: GroupRole, make: (from: GroupRole, to: GroupRole) => SecurityRule[]): SecurityRule[] {
  return [...make(a, b), ...make(b, a)];
}

const label = { controlPlane: "control-plane", nodes: "nodes", apiLb: "api-lb" } as const;

export function securityRules(spec: ClusterSpec): SecurityRule[] {
  const cilium = spec.networking.cilium;
  const rules: SecurityRule[] = [];

  spec.api.access.forEach((cidr) =>
    rules.push({
      name: apiAccessRuleName(cidr),
      group: "apiLb",
      direction: "ingress",
      protocol: "tcp",
      fromPort: API_LISTENER,
      toPort: API_LISTENER,
      peer: { cidr },
      description: `Kubernetes API clients from ${cidr} (api.access)`,
    }),
  );
  for (const group of ["controlPlane", "nodes"] as const) {
    rules.push({
      name: `api-lb-https-from-${label[group]}`,
      group: "apiLb",
      direction: "ingress",
      protocol: "tcp",
      fromPort: API_LISTENER,
      toPort: API_LISTENER,
      peer: { group },
      description: `Kubelets, pods and Cilium on ${label[group]} nodes reach the API through the internal load balancer`,
    });
  }
  rules.push(
    {
      name: "api-lb-to-control-plane",
      group: "apiLb",
      direction: "egress",
      protocol: "tcp",
      fromPort: KUBE_APISERVER,
      toPort: KUBE_APISERVER,
      peer: { group: "controlPlane" },
      description: "API load balancer forwards requests and health checks to the API servers",
    },
    {
      name: "control-plane-api-from-lb",
      group: "controlPlane",
      direction: "ingress",
      protocol: "tcp",
      fromPort: KUBE_APISERVER,
      toPort: KUBE_APISERVER,
      peer: { group: "apiLb" },
      description: "API requests and health checks forwarded by the API load balancer",
    },
    {
      name: "control-plane-from-control-plane",
      group: "controlPlane",
      direction: "ingress",
      protocol: "-1",
      peer: { group: "controlPlane" },
      description: "Control-plane peers: etcd, API servers, kubelets and pods on the control plane",
    },
    {
      name: "nodes-from-nodes",
      group: "nodes",
      direction: "ingress",
      protocol: "-1",
      peer: { group: "nodes" },
      description: "Workers to workers: pod traffic and Cilium between nodes",
    },
  );

  if (cilium.ipam === "eni") {
    // ENI mode: pods take ENI addresses and carry their node's security group, so pod traffic between
    // the control plane and workers is native and uses any port. Only etcd stays closed to workers.
    rules.push(
      ...[
        { protocol: "tcp", fromPort: 1, toPort: ETCD_PORTS.first - 1 },
        { protocol: "tcp", fromPort: ETCD_PORTS.last + 1, toPort: 65535 },
        { protocol: "udp", fromPort: 1, toPort: 65535 },
        { protocol: "icmp", fromPort: -1, toPort: -1 },
      ].map((p): SecurityRule => ({
        name: `control-plane-from-nodes-${p.protocol}${p.protocol === "tcp" ? `-${p.fromPort}-${p.toPort}` : ""}`,
        group: "controlPlane",
        direction: "ingress",
        ...p,
        peer: { group: "nodes" },
        description: `Workers and their pods (ENI addresses) to the control plane and its pods, ${p.protocol} except etcd`,
      })),
      {
        name: "nodes-from-control-plane",
        group: "nodes",
        direction: "ingress",
        protocol: "-1",
        peer: { group: "controlPlane" },
        description: "Control plane and its pods (ENI addresses) to workers and their pods: kubelet API, pod traffic",
      },
    );
  } else {
    const tunnel = cilium.tunnel === "geneve" ? "geneve" : "vxlan";
    rules.push(
      {
        name: "control-plane-api-from-nodes",
        group: "controlPlane",
        direction: "ingress",
        protocol: "tcp",
        fromPort: KUBE_APISERVER,
        toPort: KUBE_APISERVER,
        peer: { group: "nodes" },
        description: "Kubelets and pods on workers reach the API server",
      },
      {
        name: "nodes-kubelet-from-control-plane",
        group: "nodes",
        direction: "ingress",
        protocol: "tcp",
        fromPort: KUBELET_API,
        toPort: KUBELET_API,
        peer: { group: "controlPlane" },
        description: "API server to kubelets: logs, exec, port-forward, metrics",
      },
      ...between("controlPlane", "nodes", (from, to) => [
        {
          name: `${label[to]}-${tunnel}-from-${label[from]}`,
          group: to,
          direction: "ingress",
          protocol: "udp",
          fromPort: CILIUM_TUNNEL[tunnel],
          toPort: CILIUM_TUNNEL[tunnel],
          peer: { group: from },
          description: `Cilium ${tunnel} tunnel carrying pod traffic between control plane and workers`,
        },
        {
          name: `${label[to]}-cilium-health-from-${label[from]}`,
          group: to,
          direction: "ingress",
          protocol: "tcp",
          fromPort: CILIUM_HEALTH,
          toPort: CILIUM_HEALTH,
          peer: { group: from },
          description: "Cilium health checks between nodes",
        },
        {
          name: `${label[to]}-icmp-from-${label[from]}`,
          group: to,
          direction: "ingress",
          protocol: "icmp",
          fromPort: 8,
          toPort: 0,
          peer: { group: from },
          description: "Cilium health checks between nodes (ICMP echo)",
        },
      ]),
    );
  }

  for (const group of ["controlPlane", "nodes"] as const) {
    rules.push({
      name: `${label[group]}-egress-all`,
      group,
      direction: "egress",
      protocol: "-1",
      peer: { cidr: "0.0.0.0/0" },
      description: "Outbound: image pulls, package installs, AWS APIs, NTP, and traffic within the VPC",
    });
  }
  return rules;
}

/**
 * The security-group rules of the cluster, kOps's traffic model (`pkg/model/firewall.go`) in every IPAM
 * mode, each with the reason it exists: nodes reach the control plane on every port but etcd's, the control
 * plane reaches nodes on every port, each group reaches itself. Pure: the spec in, a list of rules out;
 * ClusterNetwork declares one resource per rule.
 */
import type { ClusterSpec } from "../../config/types";
import { API_LISTENER, ETCD_CLIENT, ETCD_METRICS, KUBE_APISERVER } from "../wellKnownPorts";

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

/** ICMP "destination unreachable, fragmentation needed" (type 3, code 4): what path-MTU discovery reads. */
export const ICMP_FRAGMENTATION_NEEDED = { type: 3, code: 4 };

const label = { controlPlane: "control-plane", nodes: "nodes", apiLb: "api-lb" } as const;

export function securityRules(spec: { api: Pick<ClusterSpec["api"], "access"> }): SecurityRule[] {
  const rules: SecurityRule[] = spec.api.access.map((cidr) => ({
    name: apiAccessRuleName(cidr),
    group: "apiLb",
    direction: "ingress",
    protocol: "tcp",
    fromPort: API_LISTENER,
    toPort: API_LISTENER,
    peer: { cidr },
    description: `Kubernetes API clients from ${cidr} (api.access)`,
  }));
  rules.push(...apiLoadBalancerOwnRules());
  for (const group of ["controlPlane", "nodes"] as const) {
    rules.push({
      name: `${label[group]}-from-${label[group]}`,
      group,
      direction: "ingress",
      protocol: "-1",
      peer: { group },
      description:
        group === "controlPlane"
          ? "Control-plane peers: etcd, API servers, kubelets and pods on the control plane"
          : "Workers to workers: pod traffic and Cilium between nodes",
    });
  }
  rules.push(
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
      name: "nodes-from-control-plane",
      group: "nodes",
      direction: "ingress",
      protocol: "-1",
      peer: { group: "controlPlane" },
      description:
        "Control plane and its pods to workers: kubelet API, webhooks served from nodes, tunnel, pod traffic",
    },
    // Workers and their pods reach everything on the control plane (its kubelets for metrics-server and
    // Prometheus, Hubble, Cilium health, the tunnel) but etcd, which only control-plane peers reach.
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
      description: `Workers and their pods to the control plane and its pods, ${p.protocol === "tcp" ? "TCP except etcd" : `all ${p.protocol.toUpperCase()}`}`,
    })),
  );
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

/** The API load balancer's rules besides `api.access`'s: the inbound ones count against its group's quota. */
function apiLoadBalancerOwnRules(): SecurityRule[] {
  return [
    ...(["controlPlane", "nodes"] as const).map((group): SecurityRule => ({
      name: `api-lb-https-from-${label[group]}`,
      group: "apiLb",
      direction: "ingress",
      protocol: "tcp",
      fromPort: API_LISTENER,
      toPort: API_LISTENER,
      peer: { group },
      description: `Kubelets, pods and Cilium on ${label[group]} nodes reach the API through the internal load balancer`,
    })),
    {
      // AWS's recommendation for a load balancer's group: routers anywhere on a client's path may report a
      // smaller MTU, and a connection whose large packets vanish silently hangs.
      name: "api-lb-icmp-fragmentation-needed",
      group: "apiLb",
      direction: "ingress",
      protocol: "icmp",
      fromPort: ICMP_FRAGMENTATION_NEEDED.type,
      toPort: ICMP_FRAGMENTATION_NEEDED.code,
      peer: { cidr: "0.0.0.0/0" },
      description: "Path-MTU discovery: ICMP fragmentation needed (type 3, code 4) from routers on the way to clients",
    },
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
  ];
}

/** Service accounts and RBAC of the Cilium agent and operator (the chart's rules, without Hubble/ingress). */
import type { K8sObject } from "../k8s/object";

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): Rule =>
  resourceNames ? { apiGroups, resources, verbs, resourceNames } : { apiGroups, resources, verbs };

const READ = ["get", "list", "watch"];

/** The CRDs the operator creates and keeps up to date at start; the addon ships none. */
export const CILIUM_CRDS = [
  "ciliumnodes",
  "ciliumnodeconfigs",
  "ciliumendpoints",
  "ciliumendpointslices",
  "ciliumidentities",
  "ciliumnetworkpolicies",
  "ciliumclusterwidenetworkpolicies",
  "ciliumexternalworkloads",
  "ciliumlocalredirectpolicies",
  "ciliumegressgatewaypolicies",
  "ciliumenvoyconfigs",
  "ciliumclusterwideenvoyconfigs",
  "ciliumbgppeeringpolicies",
  "ciliumbgpclusterconfigs",
  "ciliumbgppeerconfigs",
  "ciliumbgpadvertisements",
  "ciliumbgpnodeconfigs",
  "ciliumbgpnodeconfigoverrides",
  "ciliumloadbalancerippools",
  "ciliumpodippools",
  "ciliuml2announcementpolicies",
  "ciliumcidrgroups",
  "ciliumgatewayclassconfigs",
].map((r) => `${r}.cilium.io`);

const AGENT_RULES: Rule[] = [
  rule(["networking.k8s.io"], ["networkpolicies"], READ),
  rule(["discovery.k8s.io"], ["endpointslices"], READ),
  rule([""], ["namespaces", "services", "pods", "endpoints", "nodes"], READ),
  rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["list", "watch", "get"]),
  rule(
    ["cilium.io"],
    [
      "ciliumloadbalancerippools",
      "ciliumbgpnodeconfigs",
      "ciliumbgpadvertisements",
      "ciliumbgppeerconfigs",
      "ciliumclusterwideenvoyconfigs",
      "ciliumclusterwidenetworkpolicies",
      "ciliumegressgatewaypolicies",
      "ciliumendpoints",
      "ciliumendpointslices",
      "ciliumenvoyconfigs",
      "ciliumidentities",
      "ciliumlocalredirectpolicies",
      "ciliumnetworkpolicies",
      "ciliumnodes",
      "ciliumnodeconfigs",
      "ciliumcidrgroups",
      "ciliuml2announcementpolicies",
      "ciliumpodippools",
    ],
    ["list", "watch"],
  ),
  rule(["cilium.io"], ["ciliumidentities", "ciliumendpoints", "ciliumnodes"], ["create"]),
  rule(["cilium.io"], ["ciliumidentities"], ["update"]),
  rule(["cilium.io"], ["ciliumendpoints"], ["delete", "get"]),
  rule(["cilium.io"], ["ciliumnodes", "ciliumnodes/status"], ["get", "update"]),
  rule(
    ["cilium.io"],
    ["ciliumendpoints/status", "ciliumendpoints", "ciliuml2announcementpolicies/status", "ciliumbgpnodeconfigs/status"],
    ["patch"],
  ),
];

const OPERATOR_RULES: Rule[] = [
  rule([""], ["pods"], ["get", "list", "watch", "delete"]),
  rule([""], ["configmaps"], ["patch"], ["cilium-config"]),
  rule([""], ["nodes"], ["list", "watch"]),
  rule([""], ["nodes", "nodes/status"], ["patch"]),
  rule(["discovery.k8s.io"], ["endpointslices"], READ),
  rule([""], ["services/status"], ["update", "patch"]),
  rule([""], ["namespaces", "secrets"], READ),
  rule([""], ["services", "endpoints"], READ),
  rule(
    ["cilium.io"],
    ["ciliumnetworkpolicies", "ciliumclusterwidenetworkpolicies"],
    ["create", "update", "deletecollection", "patch", "get", "list", "watch"],
  ),
  rule(["cilium.io"], ["ciliumnetworkpolicies/status", "ciliumclusterwidenetworkpolicies/status"], ["patch", "update"]),
  rule(["cilium.io"], ["ciliumendpoints", "ciliumidentities"], ["delete", "list", "watch"]),
  rule(["cilium.io"], ["ciliumidentities"], ["update"]),
  rule(["cilium.io"], ["ciliumnodes"], ["create", "update", "get", "list", "watch", "delete"]),
  rule(["cilium.io"], ["ciliumnodes/status"], ["update"]),
  rule(
    ["cilium.io"],
    [
      "ciliumendpointslices",
      "ciliumenvoyconfigs",
      "ciliumbgppeerconfigs",
      "ciliumbgpadvertisements",
      "ciliumbgpnodeconfigs",
    ],
    ["create", "update", "get", "list", "watch", "delete", "patch"],
  ),
  rule(["cilium.io"], ["ciliumbgpclusterconfigs/status", "ciliumbgppeerconfigs/status"], ["update"]),
  rule(
    ["cilium.io"],
    [
      "ciliumloadbalancerippools",
      "ciliumpodippools",
      "ciliumbgpclusterconfigs",
      "ciliumbgpnodeconfigoverrides",
      "ciliumbgppeerconfigs",
    ],
    READ,
  ),
  rule(["cilium.io"], ["ciliumpodippools"], ["create"]),
  rule(["cilium.io"], ["ciliumloadbalancerippools/status"], ["patch"]),
  rule(["cilium.io"], ["ciliumendpointslices"], ["deletecollection"]),
  rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["create", "get", "list", "watch"]),
  rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["update"], CILIUM_CRDS),
  rule(["coordination.k8s.io"], ["leases"], ["create", "get", "update"]),
];

const labels = { "app.kubernetes.io/part-of": "cilium" };

export function serviceAccounts(namespace: string): K8sObject[] {
  return ["cilium", "cilium-operator"].map((name) => ({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace, labels },
  }));
}

function clusterRoleWithBinding(name: string, rules: Rule[], namespace: string): K8sObject[] {
  return [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name, labels }, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  ];
}

/** A Role in the Cilium namespace bound to one of its service accounts. */
export function roleWithBinding(name: string, serviceAccount: string, rules: Rule[], namespace: string): K8sObject[] {
  return [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace, labels }, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace }],
    },
  ];
}

export function rbac(namespace: string): K8sObject[] {
  return [
    ...clusterRoleWithBinding("cilium", AGENT_RULES, namespace),
    ...clusterRoleWithBinding("cilium-operator", OPERATOR_RULES, namespace),
    ...roleWithBinding("cilium-config-agent", "cilium", [rule([""], ["configmaps"], READ)], namespace),
  ];
}

export { rule };
export type { Rule };

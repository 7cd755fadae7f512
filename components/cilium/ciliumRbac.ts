/** Service accounts and RBAC of the Cilium agent and operator (the chart's rules per line, without Hubble/ingress). */
import type { K8sObject } from "../k8s/object";

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): Rule =>
  resourceNames ? { apiGroups, resources, verbs, resourceNames } : { apiGroups, resources, verbs };

const READ = ["get", "list", "watch"];

/** Whether a line (`1.NN`) is at least another. */
const since = (line: string, first: string) => Number(line.split(".")[1]) >= Number(first.split(".")[1]);
const until = (line: string, last: string) => !since(line, `1.${Number(last.split(".")[1]) + 1}`);
const onlyIf = <T>(condition: boolean, ...items: T[]): T[] => (condition ? items : []);

/** The cilium.io resources, in the chart's order, that both the operator's CRD list and the agent's read rule name. */
const SHARED_CILIUM_RESOURCES = [
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
];

/** The CRDs the operator creates and keeps up to date at start (the addon ships none), per line. */
export function ciliumCrds(line: string): string[] {
  return [
    "ciliumloadbalancerippools",
    ...onlyIf(until(line, "1.18"), "ciliumbgppeeringpolicies"),
    "ciliumbgpclusterconfigs",
    "ciliumbgppeerconfigs",
    "ciliumbgpadvertisements",
    "ciliumbgpnodeconfigs",
    "ciliumbgpnodeconfigoverrides",
    ...SHARED_CILIUM_RESOURCES,
    "ciliumgatewayclassconfigs",
    ...onlyIf(since(line, "1.20"), "ciliumdatapathplugins"),
  ].map((r) => `${r}.cilium.io`);
}

const BGP_STATUS_CRDS = ["clusterconfigs", "peerconfigs", "advertisements", "nodeconfigs", "nodeconfigoverrides"].map(
  (r) => `ciliumbgp${r}.cilium.io`,
);

function agentRules(line: string): Rule[] {
  return [
    rule(["networking.k8s.io"], ["networkpolicies"], READ),
    rule(["discovery.k8s.io"], ["endpointslices"], READ),
    // Nodes, in v1.20.2: get for the config init container (`cilium-dbg build-config`), which reads its Node's
    // annotations and labels for per-node settings (pkg/option/resolver/resolver.go); list and watch for the
    // agent's Node resource (pkg/k8s/resource_ctors.go).
    rule([""], ["namespaces", "services", "pods", ...onlyIf(until(line, "1.19"), "endpoints"), "nodes"], READ),
    rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["list", "watch", "get"]),
    rule(
      ["cilium.io"],
      [
        "ciliumloadbalancerippools",
        ...onlyIf(until(line, "1.19"), "ciliumbgppeeringpolicies"),
        "ciliumbgpnodeconfigs",
        "ciliumbgpadvertisements",
        "ciliumbgppeerconfigs",
        ...SHARED_CILIUM_RESOURCES,
        ...onlyIf(since(line, "1.20"), "ciliumdatapathplugins"),
      ],
      ["list", "watch"],
    ),
    rule(["cilium.io"], ["ciliumidentities", "ciliumendpoints", "ciliumnodes"], ["create"]),
    rule(["cilium.io"], ["ciliumidentities"], ["update"]),
    rule(["cilium.io"], ["ciliumendpoints"], ["delete", "get"]),
    rule(["cilium.io"], ["ciliumnodes", "ciliumnodes/status"], ["get", "update"]),
    rule(
      ["cilium.io"],
      [
        "ciliumendpoints/status",
        "ciliumendpoints",
        "ciliuml2announcementpolicies/status",
        "ciliumbgpnodeconfigs/status",
      ],
      ["patch"],
    ),
  ];
}

function operatorRules(line: string): Rule[] {
  const v120 = since(line, "1.20");
  return [
    rule([""], ["pods"], ["get", "list", "watch", "delete"]),
    rule([""], ["configmaps"], ["patch"], ["cilium-config"]),
    // Nodes, in v1.20.2 (operator/watchers/node_taint.go): list and watch for its Node store, patch to take
    // the agent-not-ready taint off a node whose agent runs, and nodes/status to set NetworkUnavailable false.
    rule([""], ["nodes"], ["list", "watch"]),
    rule([""], ["nodes", "nodes/status"], ["patch"]),
    rule(["discovery.k8s.io"], ["endpointslices"], READ),
    rule([""], ["services/status"], ["update", "patch"]),
    // No Secrets: the chart grants them for Ingress, Gateway API, BGP and policy secrets sync, none of which
    // the program turns on (cilium-config enable-policy-secrets-sync: false).
    rule([""], ["namespaces", ...onlyIf(v120, "serviceaccounts")], READ),
    rule([""], ["services", ...onlyIf(!v120, "endpoints")], READ),
    rule(
      ["cilium.io"],
      ["ciliumnetworkpolicies", "ciliumclusterwidenetworkpolicies"],
      ["create", "update", "deletecollection", "patch", "get", "list", "watch"],
    ),
    rule(
      ["cilium.io"],
      ["ciliumnetworkpolicies/status", "ciliumclusterwidenetworkpolicies/status"],
      ["patch", "update"],
    ),
    rule(["cilium.io"], ["ciliumendpoints", "ciliumidentities"], ["delete", "list", "watch"]),
    rule(["cilium.io"], ["ciliumidentities"], ["update"]),
    rule(["cilium.io"], ["ciliumnodes"], ["create", "update", "get", "list", "watch", "delete"]),
    rule(["cilium.io"], ["ciliumnodes/status"], ["update"]),
    rule(
      ["cilium.io"],
      v120
        ? [
            "ciliumendpointslices",
            "ciliumenvoyconfigs",
            "ciliumbgpclusterconfigs",
            "ciliumbgpnodeconfigoverrides",
            "ciliumbgppeerconfigs",
            "ciliumbgpadvertisements",
            "ciliumbgpnodeconfigs",
            "ciliumcidrgroups",
          ]
        : [
            "ciliumendpointslices",
            "ciliumenvoyconfigs",
            "ciliumbgppeerconfigs",
            "ciliumbgpadvertisements",
            "ciliumbgpnodeconfigs",
          ],
      ["create", "update", "get", "list", "watch", "delete", "patch"],
    ),
    rule(["cilium.io"], ["ciliumbgpclusterconfigs/status", "ciliumbgppeerconfigs/status"], ["update"]),
    rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["create", "get", "list", "watch"]),
    rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], ["update"], ciliumCrds(line)),
    ...onlyIf(v120, rule(["apiextensions.k8s.io"], ["customresourcedefinitions/status"], ["update"], BGP_STATUS_CRDS)),
    rule(
      ["cilium.io"],
      v120
        ? ["ciliumloadbalancerippools", "ciliumpodippools", "ciliumbgppeerconfigs", "ciliumdatapathplugins"]
        : [
            "ciliumloadbalancerippools",
            "ciliumpodippools",
            "ciliumbgppeeringpolicies",
            "ciliumbgpclusterconfigs",
            "ciliumbgpnodeconfigoverrides",
            "ciliumbgppeerconfigs",
          ],
      READ,
    ),
    rule(["cilium.io"], ["ciliumpodippools"], ["create"]),
    rule(["cilium.io"], ["ciliumloadbalancerippools/status"], ["patch"]),
    rule(["coordination.k8s.io"], ["leases"], ["create", "get", "update"]),
    ...onlyIf(since(line, "1.19"), rule(["cilium.io"], ["ciliumendpointslices"], ["deletecollection"])),
  ];
}

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

/** The agent's and operator's ClusterRoles as the chart of the line grants them. */
export function rbac(namespace: string, line: string): K8sObject[] {
  return [
    ...clusterRoleWithBinding("cilium", agentRules(line), namespace),
    ...clusterRoleWithBinding("cilium-operator", operatorRules(line), namespace),
    ...roleWithBinding("cilium-config-agent", "cilium", [rule([""], ["configmaps"], READ)], namespace),
  ];
}

export { rule };
export type { Rule };

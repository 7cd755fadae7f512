/**
 * The driver's accounts and RBAC, the chart's rules: the controller's sidecars (provisioner, attacher,
 * resizer, and their leader-election leases) and the node plugin's reads of its node. The grants on `nodes`
 * are each a call the deployed versions make (below); the chart's `get` for the provisioner is not.
 */
import type { K8sObject } from "../k8s/object";
import { EBS_CSI_NAMESPACE, NAME_LABELS } from "./labels";

const RBAC = "rbac.authorization.k8s.io/v1";
const CONTROLLER = "ebs-csi-controller-sa";
const NODE = "ebs-csi-node-sa";

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({ apiGroups, resources, verbs });
const READ = ["get", "list", "watch"];
const EVENTS = rule([""], ["events"], ["list", "watch", "create", "update", "patch"]);

const CLUSTER_ROLES: { role: string; binding: string; account: string; rules: Rule[] }[] = [
  {
    role: "ebs-external-attacher-role",
    binding: "ebs-csi-attacher-binding",
    account: CONTROLLER,
    rules: [
      rule([""], ["persistentvolumes"], [...READ, "patch"]),
      rule(["storage.k8s.io"], ["csinodes"], READ),
      rule(["storage.k8s.io"], ["volumeattachments"], [...READ, "patch"]),
      rule(["storage.k8s.io"], ["volumeattachments/status"], ["patch"]),
    ],
  },
  {
    role: "ebs-csi-node-role",
    binding: "ebs-csi-node-getter-binding",
    account: NODE,
    rules: [
      rule(["storage.k8s.io"], ["volumeattachments"], READ),
      // Nodes, in aws-ebs-csi-driver v1.64.0, each call for its own node only, which RBAC cannot express: list
      // and watch for the agent-not-ready taint watcher (an informer with `metadata.name=<node>`), get for a
      // fresh copy of it and for the `kubernetes` metadata source and the pre-stop hook, patch to take the
      // taint off (pkg/driver/node.go startNotReadyTaintWatcher and removeNotReadyTaint,
      // pkg/cloud/metadata/k8s.go, cmd/hooks/prestop.go).
      rule([""], ["nodes"], ["get", "patch", "list", "watch"]),
      rule(["storage.k8s.io"], ["csinodes"], ["get"]),
    ],
  },
  {
    role: "ebs-external-provisioner-role",
    binding: "ebs-csi-provisioner-binding",
    account: CONTROLLER,
    rules: [
      rule([""], ["persistentvolumes"], [...READ, "create", "patch", "delete"]),
      rule([""], ["persistentvolumeclaims"], [...READ, "update"]),
      rule(["storage.k8s.io"], ["storageclasses"], READ),
      EVENTS,
      rule(["snapshot.storage.k8s.io"], ["volumesnapshots"], [...READ, "update"]),
      rule(["snapshot.storage.k8s.io"], ["volumesnapshotcontents"], ["get", "list"]),
      rule(["storage.k8s.io"], ["csinodes"], READ),
      // Nodes, in csi-provisioner v6.3.0: list and watch only, for the topology informer's lister
      // (cmd/csi-provisioner/csi-provisioner.go, pkg/controller/topology.go); it never gets a node directly.
      rule([""], ["nodes"], ["list", "watch"]),
      rule(["storage.k8s.io"], ["volumeattachments"], READ),
      rule(["storage.k8s.io"], ["volumeattributesclasses"], ["get"]),
    ],
  },
  {
    role: "ebs-external-resizer-role",
    binding: "ebs-csi-resizer-binding",
    account: CONTROLLER,
    rules: [
      rule([""], ["persistentvolumes"], [...READ, "patch"]),
      rule([""], ["persistentvolumeclaims"], READ),
      rule([""], ["pods"], READ),
      rule([""], ["persistentvolumeclaims/status"], ["patch"]),
      EVENTS,
      rule(["storage.k8s.io"], ["volumeattributesclasses"], READ),
    ],
  },
];

const subjects = (account: string) => [{ kind: "ServiceAccount", name: account, namespace: EBS_CSI_NAMESPACE }];
const account = (name: string): K8sObject => ({
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: { name, namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
  automountServiceAccountToken: true,
});

export function rbacObjects(): K8sObject[] {
  const leases = "ebs-csi-leases-role";
  return [
    account(CONTROLLER),
    account(NODE),
    ...CLUSTER_ROLES.map((r) => ({
      apiVersion: RBAC,
      kind: "ClusterRole",
      metadata: { name: r.role, labels: NAME_LABELS },
      rules: r.rules,
    })),
    ...CLUSTER_ROLES.map((r) => ({
      apiVersion: RBAC,
      kind: "ClusterRoleBinding",
      metadata: { name: r.binding, labels: NAME_LABELS },
      subjects: subjects(r.account),
      roleRef: { kind: "ClusterRole", name: r.role, apiGroup: "rbac.authorization.k8s.io" },
    })),
    {
      apiVersion: RBAC,
      kind: "Role",
      metadata: { name: leases, namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
      rules: [rule(["coordination.k8s.io"], ["leases"], ["get", "watch", "list", "delete", "update", "create"])],
    },
    {
      apiVersion: RBAC,
      kind: "RoleBinding",
      metadata: { name: "ebs-csi-leases-rolebinding", namespace: EBS_CSI_NAMESPACE, labels: NAME_LABELS },
      subjects: subjects(CONTROLLER),
      roleRef: { kind: "Role", name: leases, apiGroup: "rbac.authorization.k8s.io" },
    },
  ];
}

/**
 * RBAC as calls: the (API group, resource, verb, namespace, name) grants an add-on's chart makes its service
 * accounts, and the real authorizer's answer for each, asked with SubjectAccessReviews (what
 * `kubectl auth can-i --as` sends).
 */
import { expect } from "chai";
import type { KubeObject } from "../parity/compare";
import type { ControlPlane } from "./controlPlane";

/** (API group, resource, verb, namespace, name) grants of a set of RBAC rules. */
export interface Call {
  group: string;
  resource: string;
  verb: string;
  namespace?: string;
  name?: string;
}
interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}
const callsOf = (rules: Rule[], namespace?: string): Call[] =>
  rules.flatMap((r) =>
    (r.apiGroups ?? [""]).flatMap((group) =>
      (r.resources ?? []).flatMap((resource) =>
        r.verbs.flatMap((verb) =>
          (r.resourceNames?.length ? r.resourceNames : [undefined]).map((name) => ({
            group,
            resource,
            verb,
            namespace,
            name,
          })),
        ),
      ),
    ),
  );

/**
 * The calls the chart's roles bound to a service account grant it, but for the objects its parity test's
 * intended differences leave out (`leftOut`).
 */
export function chartGrants(chart: KubeObject[], serviceAccount: string, leftOut: (path: string) => unknown): Call[] {
  const objects = chart.filter((o) => !leftOut(`${o.kind}/${o.metadata.name}`));
  const bound = (kind: string) =>
    objects.filter(
      (o) =>
        o.kind === kind &&
        (o.subjects as { kind: string; name: string }[] | undefined)?.some(
          (s) => s.kind === "ServiceAccount" && s.name === serviceAccount,
        ),
    );
  const role = (kind: string, name: string, namespace?: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
  // A grant the program leaves out on purpose (a reviewed difference, in the parity test's form) is not asked.
  const kept = (kind: string, name: string, calls: Call[]) =>
    calls.filter((c) => !leftOut(`${kind}/${name} grants ${c.group}/${c.resource} ${c.verb} ${c.name ?? "*"}`));
  return [
    ...bound("ClusterRoleBinding").flatMap((b) => {
      const ref = b.roleRef as { name: string };
      return kept("ClusterRole", ref.name, callsOf((role("ClusterRole", ref.name)?.rules ?? []) as Rule[]));
    }),
    ...bound("RoleBinding").flatMap((b) => {
      const ref = b.roleRef as { kind: string; name: string };
      const ns = b.metadata.namespace;
      const source = ref.kind === "ClusterRole" ? role("ClusterRole", ref.name) : role("Role", ref.name, ns);
      return kept(ref.kind, ref.name, callsOf((source?.rules ?? []) as Rule[], ns));
    }),
  ];
}

/** The real authorizer's answers for a service account, in one request per call (SubjectAccessReview). */
export function allowed(cp: ControlPlane, serviceAccount: string, calls: Call[]): boolean[] {
  const reviews = calls.map((c) => ({
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: `system:serviceaccount:kube-system:${serviceAccount}`,
      groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
      resourceAttributes: {
        group: c.group,
        resource: c.resource.split("/")[0],
        subresource: c.resource.split("/")[1],
        verb: c.verb,
        namespace: c.namespace,
        name: c.name,
      },
    },
  }));
  const out = cp.kubectl(
    ["create", "-o", 'jsonpath={.status.allowed}{"\\n"}', "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: reviews }),
  );
  const answers = out.trim().split("\n");
  expect(answers.length, "one answer per call").to.equal(calls.length);
  return answers.map((a) => a === "true");
}

/** Calls none of the add-ons' components makes (a chart's grant of one is left out of the sample for it). */
export const NEVER: Call[] = [
  { group: "", resource: "secrets", verb: "list", namespace: "kube-system" },
  { group: "", resource: "pods/exec", verb: "create", namespace: "default" },
  { group: "", resource: "serviceaccounts/token", verb: "create", namespace: "kube-system" },
  { group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", verb: "create" },
  { group: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "escalate" },
  { group: "", resource: "users", verb: "impersonate" },
  { group: "", resource: "namespaces", verb: "delete" },
  { group: "", resource: "nodes", verb: "create" },
  { group: "apps", resource: "deployments", verb: "update", namespace: "kube-system" },
];

/** Whether a grant covers a call (`*` wildcards; a grant without a name covers every name). */
export const covers = (grant: Call, call: Call) =>
  [grant.group === "*" || grant.group === call.group, grant.resource === "*" || grant.resource === call.resource]
    .concat([grant.verb === "*" || grant.verb === call.verb, !grant.namespace || grant.namespace === call.namespace])
    .concat([!grant.name || grant.name === call.name])
    .every(Boolean);

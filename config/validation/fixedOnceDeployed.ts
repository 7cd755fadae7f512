/**
 * Settings fixed once the stack is deployed, held to what its last update applied (components/appliedStateOutputs.ts).
 * Each would break the running cluster, or replace resources that cannot be replaced under it so that `pulumi
 * up` stops half done; a cluster with another value is a new stack. Pure: the program refuses them before it
 * declares anything, with the config's other errors and the fix that sets the applied value back. The table is
 * also what docs/cluster-config.md says of each (devtools/codegen/configDoc.ts).
 */
import type { AppliedState } from "../appliedState";
import { eniMode } from "../eniMode";
import type { ClusterSpec } from "../types";
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

export interface FixedSetting {
  field: string;
  /** Its applied value from an output of its own; without one, the stack's `fixedSettings` output records it. */
  applied?: (state: AppliedState) => string | undefined;
  value: (spec: ClusterSpec) => string;
  /** Why another value cannot be applied, for the docs. */
  reason: string;
  /** Why, given the applied value, for the error. */
  why: (applied: string) => string;
  /** Whether the setting means anything to the cluster SPEC describes; else any value goes. */
  applies?: (spec: ClusterSpec) => boolean;
}

export const FIXED_SETTINGS: readonly FixedSetting[] = [
  {
    field: "iam.path",
    applied: (state) => state.iamPath,
    value: (spec) => spec.iam.path,
    // IAM names are unique in the account whatever the path (IAM identifiers: friendly names and paths), so
    // Pulumi deletes each role, policy and instance profile before creating it again (cli/plan/deleteFirst.ts).
    reason:
      "IAM names are unique in the account whatever the path, so each role, policy and instance profile " +
      "would be deleted before it is created at another one, taking the running nodes' AWS credentials with it",
    why: (applied) =>
      `the stack's roles, policies and instance profiles are at ${applied} (its controlPlaneRoleArn output): ` +
      "IAM names are unique in the account whatever the path, so each would be deleted before it is created " +
      "at the new path, taking the running nodes' AWS credentials with it",
  },
  {
    field: "network.cidr",
    applied: (state) => state.networkCidr,
    value: (spec) => spec.network.cidr,
    // EC2 refuses to delete a security group or subnet that network interfaces still use (DependencyViolation),
    // and the nodes and load balancers leave them only once replaced themselves.
    reason:
      "another CIDR is a new VPC, and EC2 refuses to delete the subnets and security groups the running " +
      "cluster uses (DependencyViolation)",
    why: (applied) =>
      `the stack's VPC is ${applied} (its vpcCidr output): another CIDR is a new VPC, whose replacement would ` +
      "delete the subnets and security groups the running nodes and load balancers use, which EC2 refuses " +
      "(DependencyViolation)",
  },
  {
    field: "network.serviceCIDR",
    value: (spec) => spec.network.serviceCIDR,
    // kubeadm puts the range's first address in the API server's certificate and gives the kubelets CoreDNS's
    // (its tenth) as the pods' DNS server; Services keep the cluster IPs they were given.
    reason:
      "every Service keeps the cluster IP it was given from the old range, among them the API server's own " +
      "(`kubernetes.default`, in its certificate) and CoreDNS's, the DNS server of every pod",
    why: (applied) =>
      `the cluster's Services have their cluster IPs from ${applied}, among them the API server's own ` +
      "(kubernetes.default, in its certificate) and CoreDNS's, the DNS server of every pod: none moves to " +
      "another range",
  },
  {
    field: "network.podCIDR",
    value: (spec) => spec.network.podCIDR,
    applies: (spec) => !eniMode(spec.networking.cilium),
    // docs/cilium.md: the nodes keep the ranges the controller manager gave them, and their pods the addresses.
    reason:
      "outside ENI mode (where it is unused), each running node keeps the pod range the controller manager " +
      "gave it out of the old range, and its pods their addresses, while the controller manager and Cilium " +
      "would hold the new one",
    why: (applied) =>
      `the running nodes' pod ranges, and their pods' addresses, are out of ${applied}: a node keeps its range ` +
      "until it is replaced, outside the range the controller manager and Cilium would then hold the cluster's",
  },
  {
    field: "kubeProxy.enabled",
    value: (spec) => String(spec.kubeProxy.enabled),
    // kubeadm installs kube-proxy, or leaves it out, when it creates the cluster (components/nodes/kubeadmConfig.ts:
    // skipPhases and proxy.disabled), and its upgrades keep it that way.
    reason:
      "kubeadm installs kube-proxy, or leaves it out, when it creates the cluster: turning it on installs " +
      "nothing while Cilium stops replacing it (Services stop answering), and turning it off leaves kube-proxy " +
      "running beside Cilium's replacement",
    why: (applied) =>
      `the cluster was created with kube-proxy ${applied === "true" ? "running" : "left out"}, and kubeadm installs or ` +
      "removes it only when it creates a cluster: " +
      (applied === "true"
        ? "turned off, kube-proxy's DaemonSet and rules stay beside Cilium's replacement"
        : "turned on, nothing installs it while Cilium stops replacing it, and Services stop answering"),
  },
  {
    field: "topology",
    value: (spec) => spec.topology,
    // The subnets change kind under the same CIDRs: Pulumi creates the new one first, which EC2 refuses
    // (InvalidSubnet.Conflict); and a group's subnets changing starts no instance refresh.
    reason:
      "the subnets would be replaced under the same CIDRs, which EC2 refuses while the old ones exist " +
      "(`InvalidSubnet.Conflict`), and a group's subnets changing starts no instance refresh, so the running " +
      "nodes would stay where the routes out change under them",
    why: (applied) =>
      `the nodes run in ${applied} subnets: the new subnets would take the same CIDRs, which EC2 refuses while ` +
      "the old ones exist (InvalidSubnet.Conflict), and a group's subnets changing starts no instance refresh, " +
      "so the running nodes would stay where the routes out change under them",
  },
];

/**
 * What the stack's `fixedSettings` output records: the values of the settings with no output of their own,
 * those that mean something to this cluster (a cluster that ran without one takes any value next).
 */
export function recordedFixedSettings(spec: ClusterSpec): Record<string, string> {
  return Object.fromEntries(
    FIXED_SETTINGS.filter((f) => !f.applied && (!f.applies || f.applies(spec))).map((f) => [f.field, f.value(spec)]),
  );
}

/** The errors of the settings, among those whose own value is valid (`valid`), that differ from the applied. */
export function fixedSettingErrors(
  state: AppliedState,
  spec: ClusterSpec,
  valid: (field: string) => boolean,
): FieldError[] {
  return FIXED_SETTINGS.flatMap(({ field, applied, value, why, applies }) => {
    const was = applied ? applied(state) : state.fixedSettings?.[field];
    if (was === undefined || !valid(field) || was === value(spec)) return [];
    if (applies && !applies(spec)) return [];
    return [
      withSuggestion(invalid(field, value(spec), `${why(was)}; a cluster with another value is a new stack`), was),
    ];
  });
}

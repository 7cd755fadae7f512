/**
 * What the package exports to other Pulumi programs (package.json's main, compiled; its types are these
 * sources): the `Cluster`, the components it is built of, and the config's types and errors.
 */
export { Cluster } from "./cluster";
export type { ClusterArgs, ClusterOutputs } from "./cluster";
// The components, each taking only what it reads of the config (a `Pick` of the spec), usable alone.
export { ClusterNetwork } from "./network/clusterNetwork";
export type { ClusterNetworkArgs, NetworkSpec } from "./network/clusterNetwork";
export { featurePolicies, MasterIamRole, NodeIamRole } from "./iam/instanceRole";
export { STATEMENT_SOURCES } from "./features";
export type { InstanceRoleArgs, RolePolicy, RoleSpec } from "./iam/instanceRole";
export type { PolicyDocument, Statement } from "./iam/policyDocument";
export { NodeLaunchTemplate } from "./nodes/nodeLaunchTemplate";
export type { NodeLaunchTemplateArgs } from "./nodes/nodeLaunchTemplate";
export type { NodeSpec } from "./nodes/bootstrapConfig";
export { instanceGroups } from "./nodes/instanceGroups";
export type { InstanceGroup } from "./nodes/instanceGroups";
export { CiliumAddon } from "./cilium/ciliumAddon";
export type { CiliumAddonArgs } from "./cilium/ciliumAddon";
export type { CiliumSpec } from "./cilium/ciliumSpec";
// How an add-on's objects reach the cluster: through the program's Kubernetes provider, or applied from the
// control plane (`addons.applyFrom`).
export { fromControlPlane, throughProvider } from "./k8s/delivery";
export type { AddonDelivery } from "./k8s/delivery";
export { appliedState } from "./appliedStateOutputs";
export type { AppliedState } from "../config/appliedState";
export type { ClusterConfig, ClusterSpec } from "../config/types";
export { clusterSpec } from "./clusterSpec";
export { ConfigValidationError } from "../config/validation/report";

/**
 * What the package exports to other Pulumi programs (package.json's main, compiled; its types are these
 * sources): the `Cluster`, the components it is built of, and the config's types and errors.
 */
export { Cluster } from "./cluster";
export type { ClusterArgs, ClusterOutputs } from "./cluster";
export { ClusterNetwork } from "./network/clusterNetwork";
export { MasterIamRole, NodeIamRole } from "./iam/instanceRole";
export { NodeLaunchTemplate } from "./nodes/nodeLaunchTemplate";
export { CiliumAddon } from "./cilium/ciliumAddon";
export { appliedState } from "./appliedStateOutputs";
export type { AppliedState } from "../config/appliedState";
export type { ClusterConfig, ClusterSpec } from "../config/types";
export { clusterSpec } from "../config/load";
export { ConfigValidationError } from "../config/validation/report";

/**
 * Every statement source, one per feature. A feature that needs AWS permissions adds its file beside
 * these and one line here; the role policies pick it up.
 */
import type { StatementSource } from "./iam/statementSource";
import { ciliumEni } from "./cilium/ciliumEniRights";
import { cloudController } from "./cloudController/cloudControllerRights";
import { controlPlaneState } from "./controlPlane/controlPlaneStateAccess";
import { ebsCsiDriver } from "./ebsCsi/ebsCsiDriverRights";
import { nodeBootstrap } from "./nodes/nodeBootstrapRights";
import { nodeCredentials } from "./secrets/nodeCredentialRights";
import { nodeTerminationHandler } from "./drain/nodeTerminationHandlerRights";
import { sessionManager } from "./nodes/sessionManagerRights";

export const STATEMENT_SOURCES: readonly StatementSource[] = [
  nodeBootstrap, // both roles: secrets, health report, and in ENI mode the instance type's limits
  ciliumEni, // control plane, ENI mode: the Cilium operator
  sessionManager, // both roles: getting onto a node without SSH
  controlPlaneState, // control plane: departed members, termination hook, backups, init record
  cloudController, // control plane: node initialisation, Services of type LoadBalancer
  ebsCsiDriver, // control plane, when enabled: the EBS CSI driver's volumes
  nodeTerminationHandler, // control plane: the drain of terminating nodes (its queue, the drain hook)
  nodeCredentials, // both roles: each worker's own join credential, the control plane's to write, the worker's to read
];

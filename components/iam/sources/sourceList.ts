/**
 * Every statement source, one per feature. A feature that needs AWS permissions adds its file beside
 * these and one line here; the role policies pick it up.
 */
import type { StatementSource } from "../statementSource";
import { ciliumEni } from "./ciliumEni";
import { containerImages } from "./containerImages";
import { joinToken } from "./joinToken";
import { controlPlaneState } from "./controlPlaneStateAccess";
import { nodeBootstrap } from "./nodeBootstrap";
import { sessionManager } from "./sessionManager";

export const STATEMENT_SOURCES: readonly StatementSource[] = [
  nodeBootstrap, // both roles: secrets, health report, and in ENI mode the instance type's limits
  containerImages, // both roles: ECR pulls
  ciliumEni, // control plane, ENI mode: the Cilium operator
  sessionManager, // both roles: getting onto a node without SSH
  controlPlaneState, // control plane: departed members, termination hook, backups, init record
  joinToken, // control plane: the short-lived join tokens it mints for the nodes
];

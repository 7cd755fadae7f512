/**
 * Every feature of the cluster, listed once; each entry lives in its feature's folder (feature.ts). The
 * Cluster declares the add-ons its spec turns on and gives both roles every feature's permissions (each
 * statement source returns statements only for the roles and specs it serves), validate-cluster expects the
 * add-ons' workloads, and the IAM tests simulate every source. A new feature is its folder and one line here.
 * The order is the order of the roles' statements and of the add-ons' declarations.
 */
import { ciliumFeature } from "./cilium/ciliumFeature";
import { cloudControllerFeature } from "./cloudController/cloudControllerFeature";
import { controlPlaneStateFeature } from "./controlPlane/controlPlaneStateFeature";
import { drainFeature } from "./drain/drainFeature";
import { ebsCsiFeature } from "./ebsCsi/ebsCsiFeature";
import type { Addon, Feature } from "./feature";
import type { StatementSource } from "./iam/statementSource";
import { nodeBootstrapFeature } from "./nodes/nodeBootstrapFeature";
import { sessionManagerFeature } from "./nodes/sessionManagerFeature";
import { nodeCredentialsFeature } from "./secrets/nodeCredentialsFeature";

export const FEATURES: readonly Feature[] = [
  nodeBootstrapFeature,
  ciliumFeature,
  sessionManagerFeature,
  controlPlaneStateFeature,
  cloudControllerFeature,
  ebsCsiFeature,
  drainFeature,
  nodeCredentialsFeature,
];

/** Every feature's statement sources, in the list's order. */
export const STATEMENT_SOURCES: readonly StatementSource[] = FEATURES.flatMap((feature) => feature.rights);

/** Every feature that runs in the cluster, with its add-on, in the list's order. */
export const ADDONS: readonly (Addon & { name: string })[] = FEATURES.flatMap((feature) =>
  feature.addon ? [{ name: feature.name, ...feature.addon }] : [],
);

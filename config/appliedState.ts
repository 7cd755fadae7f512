/**
 * What a cluster's last successful update applied, which its next update is held to (a downgrade, a
 * skipped minor, a setting fixed once deployed changed is refused): index.ts reads it from the stack's own outputs
 * (components/appliedStateOutputs.ts), a program that declares a `Cluster` passes its own. Empty for a new cluster.
 */
export interface AppliedState {
  kubernetesVersion?: string;
  iamPath?: string;
  networkCidr?: string;
  caCertificate?: string;
  /** The settings fixed once deployed that have no output of their own, by config path (fixedOnceDeployed.ts). */
  fixedSettings?: Record<string, string>;
}

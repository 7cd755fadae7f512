/**
 * Whether the machine running `pulumi up` can reach the cluster's API, which the Kubernetes provider needs
 * to apply the add-ons. Pure: what config says, for the preview's notice and the wait's error.
 */
import type { ClusterSpec } from "../../config/types";

/** Why the deployer may not reach the API, from config alone; empty when anyone may reach it. */
export function deployerReachLimits(spec: ClusterSpec): string[] {
  const limits: string[] = [];
  if (spec.api.loadBalancer === "internal") {
    limits.push(
      "api.loadBalancer is internal: the API is reachable only from inside the VPC or a network joined to it",
    );
  }
  if (!spec.api.access.includes("0.0.0.0/0")) {
    limits.push(`api.access admits only ${spec.api.access.join(", ")}`);
  }
  return limits;
}

/** What to do when the deployer cannot reach the API, for the preview's notice and the wait's error. */
export function reachRemedies(spec: ClusterSpec): string {
  const where =
    spec.api.loadBalancer === "internal"
      ? "run pulumi up from inside the VPC (a CI runner or bastion there, or over a VPN or peering)"
      : "run pulumi up from an address in api.access, or add this machine's address: " +
        `pulumi config set --path 'api.access[${spec.api.access.length}]' <address>/32`;
  return (
    `${where}; or let the control plane apply the add-ons: pulumi config set --path addons.applyFrom controlPlane ` +
    `(docs/operations.md, "When pulumi up cannot reach the API")`
  );
}

/**
 * The notice a preview shows when the deployer applies the add-ons and config limits who reaches the API;
 * undefined when it does not.
 */
export function deployerReachNotice(spec: ClusterSpec): string | undefined {
  const limits = deployerReachLimits(spec);
  if (spec.addons.applyFrom !== "deployer" || limits.length === 0) return undefined;
  return (
    `pulumi up applies the add-ons from the machine running it, through the API load balancer, and ` +
    `${limits.join("; ")}. If this machine is not admitted, pulumi up stops at the wait after the first ` +
    `control-plane group: ${reachRemedies(spec)}.`
  );
}

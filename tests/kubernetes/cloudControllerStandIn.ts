/**
 * A stand-in for what the AWS cloud controller manager does to a node once its pod runs (no container runs
 * in this sandbox): its node controller initialises the node and removes the kubelet's cloud taint
 * (k8s.io/cloud-provider controllers/node, `UpdateNodeTaint` of `node.cloudprovider.kubernetes.io/uninitialized`).
 */
import type { ControlPlane } from "./controlPlane";
import { UNINITIALIZED_TAINT } from "./kubeletStandIn";

export function initialiseNodes(cp: ControlPlane, names: string[]): void {
  for (const name of names) cp.kubectl(["taint", "node", name, `${UNINITIALIZED_TAINT.key}-`]);
}

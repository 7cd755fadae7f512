/**
 * A stand-in for what the AWS cloud controller manager does to a node once its pod runs (no container runs
 * in this sandbox; the box runs the real one): its node controller labels the node with its instance's zone,
 * region and type, then removes the kubelet's cloud taint (k8s.io/cloud-provider controllers/node,
 * `getNodeModifiersFromCloudProvider`, then `UpdateNodeTaint` of `node.cloudprovider.kubernetes.io/uninitialized`).
 * The instances here are one type in one zone.
 */
import type { ControlPlane } from "./controlPlane";
import { UNINITIALIZED_TAINT } from "./kubeletStandIn";

const INSTANCE: Record<string, string> = {
  "topology.kubernetes.io/zone": "us-east-1a",
  "topology.kubernetes.io/region": "us-east-1",
  "node.kubernetes.io/instance-type": "t3.medium",
};

/** The labels it sets, which a fresh node has not. */
export const CLOUD_LABELS = Object.keys(INSTANCE);

export function initialiseNodes(cp: ControlPlane, names: string[]): void {
  for (const name of names) {
    cp.kubectl(["label", "node", name, "--overwrite", ...Object.entries(INSTANCE).map(([k, v]) => `${k}=${v}`)]);
    cp.kubectl(["taint", "node", name, `${UNINITIALIZED_TAINT.key}-`]);
  }
}

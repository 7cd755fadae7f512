/**
 * What Cilium's objects are rendered from, and all they read of the cluster's config: Cilium's own settings,
 * the cluster's name and cloud labels (Cilium's cluster name, the ENI tags) and the control plane's size
 * (the operator's replicas).
 */
import type { ClusterSpec } from "../../config/types";

export type CiliumSpec = Pick<ClusterSpec, "clusterName" | "networking" | "cloudLabels"> & {
  controlPlane: Pick<ClusterSpec["controlPlane"], "count">;
};

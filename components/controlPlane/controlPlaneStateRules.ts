/**
 * The control plane's state's rules: who besides the control plane may restore its snapshots, and a one-node
 * control plane's acknowledged loss.
 */
import type { ClusterSpec } from "../../config/types";
import { required, type FieldError } from "../../config/validation/fieldErrors";
import { principalErrors } from "../../config/validation/principals";

export function backupRestorePrincipalErrors(spec: ClusterSpec): FieldError[] {
  return principalErrors("controlPlane.backupRestorePrincipals", spec.controlPlane.backupRestorePrincipals);
}

/**
 * One control-plane node is one etcd member on the instance's root volume: its unplanned loss costs the writes
 * since the last snapshot, which the replacement restores. Explicit, as kOps's etcd-manager (which re-attaches
 * the member's volume) would lose nothing there.
 */
export function singleNodeLossErrors(spec: ClusterSpec): FieldError[] {
  const { count, acceptSingleNodeLoss, backupIntervalMinutes } = spec.controlPlane;
  if (count !== 1 || acceptSingleNodeLoss) return [];
  return [
    {
      ...required(
        "controlPlane.acceptSingleNodeLoss",
        `one control-plane node loses the etcd writes of up to ${backupIntervalMinutes} minutes (the last snapshot's ` +
          "age) when its instance is lost unplanned: set this to accept that, or set controlPlane.count to 3",
      ),
      suggested: { value: "true" },
    },
  ];
}

/** The control plane's state's rules: who besides the control plane may restore its snapshots. */
import type { ClusterSpec } from "../../config/types";
import type { FieldError } from "../../config/validation/fieldErrors";
import { principalErrors } from "../../config/validation/principals";

export function backupRestorePrincipalErrors(spec: ClusterSpec): FieldError[] {
  return principalErrors("controlPlane.backupRestorePrincipals", spec.controlPlane.backupRestorePrincipals);
}

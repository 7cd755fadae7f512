/**
 * A statement source: the IAM statements one feature of the cluster needs, for the role it runs under.
 * The role policies are composed from these (kOps's `addonmanifests/<addon>/iam.go` feeding its IAM
 * builder), so each feature brings its own statements with its own `Sid`s and no feature relies on a
 * permission another feature happens to hold.
 */
import type { ClusterSpec } from "../../config/types";
import type { Statement } from "./policyDocument";

export interface AwsCoordinates {
  partition: string;
  region: string;
  accountId: string;
}

/** The two instance roles: `control-plane` (`MasterIamRole`) and `node` (`NodeIamRole`). */
export type RoleKind = "control-plane" | "node";

export interface StatementSource {
  /** Every `Sid` of the source starts with it (the feature's name), so a reader of a policy knows which
   * feature each statement serves and two sources can never claim one `Sid`. */
  sidPrefix: string;
  /** The statements the feature needs on `role` for this spec; none when it does not run there. */
  statements(role: RoleKind, spec: ClusterSpec, at: AwsCoordinates): Statement[];
}

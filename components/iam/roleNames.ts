/**
 * The instance roles' physical names, pure: what `MasterIamRole` and `NodeIamRole` name their roles, and what
 * a policy or a node's user data names them by before (or without) the roles being declared.
 */
import { awsName } from "../naming";

/** What IAM names may not hold: they are `[\w+=,.@-]`. */
export const IAM_NAME_REJECTS = /[^\w+=,.@-]/g;

/** IAM role names: `[\w+=,.@-]`, at most 64 characters. */
export const roleName = (prefix: string, clusterName: string) =>
  awsName(`${prefix}.${clusterName}`, 64, IAM_NAME_REJECTS);

/** The node role's name (`nodes.<clusterName>`, shortened as `roleName` shortens), at `iam.path`. */
export const nodeRoleName = (clusterName: string) => roleName("nodes", clusterName);

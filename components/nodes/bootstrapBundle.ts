/**
 * Where a group's bootstrap script lives: the cluster's bootstrap bucket, under a key named by the script's
 * SHA-256 and its role (kOps's nodeup config in its state store, fetched with download-or-bust). User data is
 * only the loader that fetches it (userData.ts `renderLoader`): AWS takes at most 16 KB of user data, and a
 * control-plane node's script is past that gzipped. Pure, so the IAM statements, the loader and the bucket agree.
 */
import { createHash } from "crypto";
import type { RoleKind } from "../iam/statementSource";
import { awsName } from "../naming";

/** The folder of the scripts, one per role: a role's instances read only their own role's. */
export const BOOTSTRAP_PREFIX = "bootstrap/";

export function bootstrapBucketName(clusterName: string, accountId: string, region: string): string {
  return awsName(`bootstrap-${clusterName}-${accountId}-${region}`.toLowerCase(), 63, /[^a-z0-9-]/g);
}

export const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The script's key: a new script is a new key, so an instance never fetches another version than its own. */
export const bootstrapObjectKey = (role: RoleKind, script: string) =>
  `${BOOTSTRAP_PREFIX}${role}/${sha256Hex(script)}.sh`;

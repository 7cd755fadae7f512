/**
 * User data as a launch template takes it: the script gzipped, then base64. cloud-init inflates gzip user
 * data before it runs it (kOps's CompressUserData and cluster-api-provider-aws do the same), which keeps every
 * group within its budget (userDataBudget.ts). The compressor is pako, pure JavaScript pinned in the lock
 * file, so the bytes do not depend on the Node.js build or the CPU: a new compressed form would roll every
 * node. Reviewers read the text: `decodeUserData` inflates it for the plan's --out and diffs.
 */
import { gzip, ungzip } from "pako";

export function encodeUserData(text: string): string {
  return Buffer.from(gzip(Buffer.from(text, "utf8"), { level: 9 })).toString("base64");
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** The text of base64 user data, gzipped or not. */
export function decodeUserData(base64: string): string {
  const bytes = Buffer.from(base64, "base64");
  const gzipped = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
  return Buffer.from(gzipped ? ungzip(bytes) : bytes).toString("utf8");
}

/** Physical names within AWS's length limits, derived from the cluster name. */
import { createHash } from "crypto";

/**
 * `text` with characters AWS rejects replaced; with a hash of the whole appended whenever a character was
 * replaced or the name shortened (keeping a prefix within `max`). So two cluster names that differ only where
 * AWS's alphabet cannot tell them apart (`dup.example.com` and `dup-example.com`), or only beyond the limit,
 * never share a bucket, queue, key alias or load balancer; a name AWS takes as written is the cluster name
 * itself, unique in the account.
 */
export function awsName(text: string, max: number, allowed = /[^A-Za-z0-9-]/g): string {
  const clean = text.replace(allowed, "-");
  if (clean === text && clean.length <= max) return clean;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 6);
  return `${clean.slice(0, max - 7).replace(/-+$/, "")}-${hash}`;
}

/** Physical names within AWS's length limits, derived from the cluster name. */
import { createHash } from "crypto";

/**
 * `text` with characters AWS rejects replaced, shortened to `max` characters when needed by keeping a
 * prefix and appending a hash of the whole, so different long names stay different.
 */
export function awsName(text: string, max: number, allowed = /[^A-Za-z0-9-]/g): string {
  const clean = text.replace(allowed, "-");
  if (clean.length <= max) return clean;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 6);
  return `${clean.slice(0, max - 7).replace(/-+$/, "")}-${hash}`;
}

/**
 * A reviewed difference between the program's Cilium objects and what Cilium's chart renders for the same
 * choices. `path` matches a difference's path (`Kind/name field`), `*` standing for any text.
 */
export interface IntendedDifference {
  path: string;
  reason: string;
}

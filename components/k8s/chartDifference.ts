/**
 * A reviewed difference between an add-on's objects and what its upstream chart renders for the same
 * choices. `path` matches a difference's path (`Kind/name field`), `*` standing for any text. Each add-on
 * lists its own (its feature's `addon.chartDifferences`); its parity test fails on a difference no entry
 * explains, and on an entry nothing needs.
 */
export interface IntendedDifference {
  path: string;
  reason: string;
}

/** Why a chart's Helm bookkeeping labels are absent. */
export const NOT_INSTALLED_BY_HELM = "The objects are not installed by Helm.";

const pattern = (glob: string) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);

/** The entry of `list` that explains a difference's path. */
export function explainIn(list: readonly IntendedDifference[], path: string): IntendedDifference | undefined {
  return list.find((d) => pattern(d.path).test(path));
}

/** Why a controller that calls AWS as the control-plane role runs on the host network. */
export const ROLE_CREDENTIALS_ON_HOST_NETWORK =
  "Instance metadata, the source of the control-plane role's credentials, answers only the host's network " +
  "namespace at the default hop limit (instanceMetadata.hopLimit: 1).";

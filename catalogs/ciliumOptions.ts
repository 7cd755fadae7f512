/**
 * The option names each shipped Cilium line reads from `cilium-config` (catalogs/recorded/ciliumOptionsRecord.ts,
 * written by `npm run update-catalogs`): an `extraConfig` key outside them is ignored by Cilium without a
 * word, so a typo would silently leave the option at its default.
 */
import { CILIUM_OPTIONS } from "./recorded/ciliumOptionsRecord";

/** Where a line's options were read. */
export interface CiliumOptionSource {
  /** The chart whose `cilium-config` template's keys are recorded. */
  chart: string;
  /** The flag reference of the agent and operators whose flags are recorded. */
  flags: string;
}

/** The options a line (`1.19`) reads. */
export function ciliumOptions(line: string): string[] {
  return Object.keys(CILIUM_OPTIONS).filter((option) => CILIUM_OPTIONS[option].includes(line));
}

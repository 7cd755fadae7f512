/**
 * `networking.cilium.extraConfig` adds `cilium-config` keys. Each must be an option the selected Cilium
 * line reads (Cilium ignores any other key without a word), and must not override a key the program
 * renders from other config: that would undo the rules validation checked (ENI IPAM needs native routing,
 * ...). Each managed key maps to the config key that controls it (configMap.ts, beside its render), which
 * the error names.
 */
import { ciliumOptions } from "../../catalogs/ciliumOptions";
import { ciliumLineOf } from "../../catalogs/ciliumVersions";
import { managedCiliumKeys } from "./configMap";
import type { ClusterSpec } from "../../config/types";
import { closestKey } from "../../config/validation/closestKey";
import { child, FieldError, forbidden, mustRemove, withSuggestion } from "../../config/validation/fieldErrors";

const PATH = "networking.cilium.extraConfig";

export function validateExtraConfig(spec: ClusterSpec): FieldError[] {
  const extraConfig = spec.networking.cilium.extraConfig;
  const managedKeys = managedCiliumKeys();
  const managed = Object.keys(extraConfig)
    .filter((key) => key in managedKeys)
    .map((key) =>
      mustRemove(
        forbidden(child(PATH, key), `the program sets this Cilium option from ${managedKeys[key]}; set that instead`),
      ),
    );
  // Without a shipped line the version's own error says what to fix.
  const line = ciliumLineOf(spec.networking.cilium.version)?.line;
  if (!line) return managed;
  const known = ciliumOptions(line);
  const unknown = Object.keys(extraConfig)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const suggestion = closestKey(key, known);
      const detail =
        `not an option Cilium ${line} reads (catalogs/recorded/ciliumOptionsRecord.ts); it would be ignored` +
        (suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : "");
      const error = mustRemove(forbidden(child(PATH, key), detail));
      return suggestion ? withSuggestion(error, extraConfig[key], child(PATH, suggestion)) : error;
    });
  return [...managed, ...unknown];
}

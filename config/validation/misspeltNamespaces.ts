/**
 * Keys of Pulumi's flat config under a namespace that is a typo of the project's (`cilium-clustr:`): Pulumi
 * passes any namespace through, so the program would otherwise see the key as unset and report its default
 * or "Required value", never the typo.
 */
import { PROJECT } from "../read";
import { closestKey } from "./closestKey";
import { type FieldError, forbidden, mustRemove, withSuggestion } from "./fieldErrors";

/**
 * The namespaces the program reads; a typo is looked for of the project's only: `aws` is as near to other
 * providers' own namespaces (`tls`, `gcp`) as to its typos, which would be refused as errors of a stack that
 * also uses those providers.
 */
const READ_NAMESPACES = [PROJECT, "aws"];
const TYPO_OF = [PROJECT];

export function misspeltNamespaceErrors(all: Record<string, string>): FieldError[] {
  return Object.entries(all).flatMap(([key, value]) => {
    const colon = key.indexOf(":");
    const namespace = key.slice(0, colon);
    if (colon < 0 || READ_NAMESPACES.includes(namespace)) return [];
    const meant = closestKey(namespace, TYPO_OF);
    if (!meant) return [];
    const intended = `${meant}:${key.slice(colon + 1)}`;
    const error = mustRemove(
      forbidden(
        key,
        `the namespace ${namespace} is not one the program reads; did you mean ${JSON.stringify(intended)}?`,
      ),
    );
    // A scalar moves to the key meant; a structured value (JSON in the flat config) is set again by hand.
    return [/^[[{]/.test(value) ? error : withSuggestion(error, value, intended)];
  });
}

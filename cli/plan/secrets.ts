/**
 * Pulumi secrets in a stack file (`secure: v1:...`): `pulumi preview` decrypts them with the stack's secrets
 * provider, but the offline plan holds no key. It names each one, and a `--set` on a secret's path is its
 * placeholder, on both sides of `--diff`.
 */
import { child, index } from "../../config/validation/fieldErrors";
import { PROJECT } from "../../config/read";
import type { StackConfig } from "./stackConfig";

const isSecret = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as Record<string, unknown>).secure === "string";

function secretsUnder(value: unknown, path: string): string[] {
  if (isSecret(value)) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => secretsUnder(item, index(path, i)));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => secretsUnder(item, child(path, key)));
  return [];
}

/** The config paths (as `--set` takes them) whose values are secrets. */
export function secretPaths(config: StackConfig): string[] {
  const prefix = `${PROJECT}:`;
  return Object.entries(config).flatMap(([key, value]) =>
    secretsUnder(value, key.startsWith(prefix) ? key.slice(prefix.length) : key),
  );
}

/** What the offline plan says about the secrets it cannot read. */
export function secretsMessage(file: string, paths: readonly string[]): string {
  const placeholders = paths.map((path) => `--set '${path}=placeholder'`).join(" ");
  return (
    `${file} holds Pulumi secrets (secure:) that the offline plan cannot decrypt: ${paths.join(", ")}. ` +
    `Plan with a placeholder for each (${placeholders}), or run pulumi preview, which decrypts them`
  );
}

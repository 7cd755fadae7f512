/**
 * Turns the Pulumi config of the project namespace (every value a string, structured values as JSON) into
 * the raw config object validation takes. Values are typed by the schema: objects, lists and maps are JSON,
 * integers and booleans are coerced from their text as the Pulumi CLI does for top-level keys.
 */
import { CONFIG_TREE } from "./schema";

export const PROJECT = "cilium-cluster";

function parseValue(text: string, kind: string | undefined): unknown {
  if (kind === "string") return text;
  if (kind === "integer" && /^-?\d+$/.test(text)) return Number(text);
  if (kind === "boolean" && (text === "true" || text === "false")) return text === "true";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface RawConfig {
  /** Project keys without their namespace, values typed. */
  raw: Record<string, unknown>;
  /** `aws:region`, if set. */
  region: string | undefined;
}

/** From Pulumi's flat config (`"cilium-cluster:network": "{...}"`), the raw config of this project. */
export function readRawConfig(all: Record<string, string>): RawConfig {
  const raw: Record<string, unknown> = {};
  const prefix = `${PROJECT}:`;
  for (const [key, text] of Object.entries(all)) {
    if (!key.startsWith(prefix)) continue;
    const name = key.slice(prefix.length);
    raw[name] = parseValue(text, CONFIG_TREE[name]?.kind);
  }
  return { raw, region: all["aws:region"] };
}

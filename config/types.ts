/**
 * The cluster spec: the typed, defaulted form of the stack config. Components take (parts of) it as
 * arguments and never read config themselves. Its type is the schema's (schema.ts), where each key is
 * described once; `region` comes from `aws:region`.
 */
import type { CONFIG_SCHEMA } from "./schema";
import type { ValueOf } from "./schemaTypes";

export type ClusterSpec = ValueOf<{ kind: "object"; fields: typeof CONFIG_SCHEMA }> & { region: string };

export type Topology = ClusterSpec["topology"];

/** A Pod Security Standards level. */
export type PodSecurityLevel = ClusterSpec["podSecurity"]["enforce"];

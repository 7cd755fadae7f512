/**
 * The cluster spec: the typed, defaulted form of the stack config. Components take (parts of) it as
 * arguments and never read config themselves. Its type is the schema's (schema.ts), where each key is
 * described once; `region` comes from `aws:region`.
 */
import type { CONFIG_SCHEMA } from "./schema";
import type { InputOf, ValueOf } from "./schemaTypes";

export type ClusterSpec = ValueOf<{ kind: "object"; fields: typeof CONFIG_SCHEMA }> & { region: string };
/** A cluster's config as written: the stack config's keys, or a `Cluster`'s `config` argument. */
export type ClusterConfig = InputOf<{ kind: "object"; fields: typeof CONFIG_SCHEMA }> & { clusterName: string };

export type Topology = ClusterSpec["topology"];

/** A Pod Security Standards level. */
export type PodSecurityLevel = ClusterSpec["podSecurity"]["enforce"];

/**
 * Stack config the way the Pulumi CLI assembles it: the stack file's values, project defaults from
 * Pulumi.yaml for keys the stack leaves out, and `pulumi config set --path` edits, which change the stack
 * file's values alone (pulumi/pulumi pkg/cmd/pulumi/config/config_set.go: `ps.Config.Set(key, v, path)` on
 * the stack's own config, then saved): `nodeGroups[0].minSize` set on a stack that leaves nodeGroups to
 * its default makes the stack's nodeGroups `[{minSize: ...}]`, which then replaces the default whole.
 */
import { readFileSync } from "fs";
import { parse } from "yaml";
import { PROJECT } from "../../config/read";

/** Config keyed by full name (`cilium-cluster:network`), values as YAML gives them. */
export type StackConfig = Record<string, unknown>;

export class UsageError extends Error {}

function readYaml(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`cannot read ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = parse(text) ?? {};
  } catch (err) {
    // The parser's message says where (line, column) but not in which file.
    throw new UsageError(`${path}: ${(err as Error).message.split("\n")[0]}`);
  }
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError(`${path} is not a YAML mapping`);
  return parsed as Record<string, unknown>;
}

const fullKey = (key: string): string => (key.includes(":") ? key : `${PROJECT}:${key}`);

/** Merges Pulumi.yaml's project defaults under a stack file's `config:` values. */
export function loadStackConfig(projectFile: string, stackFile: string): StackConfig {
  return stackConfigOver(projectDefaults(projectFile), stackFile);
}

/** A stack file's `config:` values over the project's defaults (projectDefaults), which stay as they are. */
export function stackConfigOver(defaults: StackConfig, stackFile: string): StackConfig {
  return overDefaults(defaults, stackFileConfig(stackFile));
}

/** A stack file's own `config:` values, by full key: what `pulumi config set` and `rm` edit. */
export function stackFileConfig(stackFile: string): StackConfig {
  const values = readYaml(stackFile).config ?? {};
  if (typeof values !== "object" || Array.isArray(values))
    throw new UsageError(`${stackFile}: config must be a mapping`);
  return Object.fromEntries(Object.entries(values as Record<string, unknown>).map(([k, v]) => [fullKey(k), v]));
}

/** A stack's own values over the project's defaults, key by key: a stack value replaces the default whole. */
export function overDefaults(defaults: StackConfig, values: StackConfig): StackConfig {
  return { ...structuredClone(defaults), ...structuredClone(values) };
}

/** Pulumi.yaml's config defaults: what a key the stack leaves out (or removes) is. */
export function projectDefaults(projectFile: string): StackConfig {
  const project = readYaml(projectFile);
  const config: StackConfig = {};
  const declared = (project.config ?? {}) as Record<string, unknown>;
  for (const [key, decl] of Object.entries(declared)) {
    if (decl && typeof decl === "object" && !Array.isArray(decl)) {
      const d = decl as Record<string, unknown>;
      const value = d.value ?? d.default;
      if (value !== undefined) config[fullKey(key)] = value;
    } else {
      config[fullKey(key)] = decl;
    }
  }
  return config;
}

type Segment = string | number;

/** Splits `a.b[0]["c.d"]` into `["a", "b", 0, "c.d"]`. */
export function parseConfigPath(path: string): Segment[] {
  const segments: Segment[] = [];
  const bad = () => new UsageError(`malformed config path: ${path}`);
  let i = 0;
  while (i < path.length) {
    if (path.startsWith('["', i)) {
      const end = path.indexOf('"]', i + 2);
      if (end < 0) throw bad();
      segments.push(path.slice(i + 2, end));
      i = end + 2;
    } else if (path[i] === "[") {
      const end = path.indexOf("]", i);
      const digits = path.slice(i + 1, end);
      if (end < 0 || !/^\d+$/.test(digits)) throw bad();
      segments.push(Number(digits));
      i = end + 1;
    } else {
      if (segments.length > 0) {
        if (path[i] !== ".") throw bad();
        i++;
      }
      const name = /^[^.[\]]+/.exec(path.slice(i))?.[0];
      if (!name) throw bad();
      segments.push(name);
      i += name.length;
    }
  }
  if (typeof segments[0] !== "string") throw bad();
  return segments;
}

/** The CLI's coercion for `--path` leaves: `true`/`false` become booleans, integers numbers. */
function coerce(value: string): unknown {
  if (value === "true" || value === "false") return value === "true";
  if (/^-?(0|[1-9]\d*)$/.test(value)) return Number(value);
  return value;
}

/** `a.b[0]` from segments. */
const formatPath = (segments: readonly Segment[]): string =>
  segments.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");

/**
 * A list takes an index and a map a key: `nodeGroups.instanceType` would set nothing the program reads
 * (the CLI rejects it too), so it is a usage error naming the right form.
 */
function checkSegment(container: unknown, segments: readonly Segment[], i: number, value: string): void {
  const segment = segments[i];
  if (Array.isArray(container) && typeof segment === "string") {
    const fixed = formatPath([...segments.slice(0, i), 0, ...segments.slice(i)]);
    throw new UsageError(
      `${formatPath(segments.slice(0, i))} is a list: give an index, e.g. --set '${fixed}=${value}' for its first item`,
    );
  }
  if (!Array.isArray(container) && typeof segment === "number") {
    throw new UsageError(`${formatPath(segments.slice(0, i))} is not a list: use a key, not [${segment}]`);
  }
}

/**
 * Applies `pulumi config set --path PATH VALUE [--type string]` to a config: the CLI coerces a leaf below
 * the top level unless told it is a string, and keeps a top-level value as the string given.
 */
export function setPath(config: StackConfig, path: string, value: string, type?: "string"): void {
  const segments = parseConfigPath(path);
  const typed = segments.length === 1 || type === "string" ? value : coerce(value);
  assign(config, segments, typed, `${path}=${value}`);
}

/** Sets PATH to a JSON value as given: a string, number, boolean, list or object, no coercion. */
export function setJsonPath(config: StackConfig, path: string, json: string): void {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(
      `--set-json ${path}=${json}: the value is not JSON; quote a string, e.g. --set-json '${path}="${json}"'`,
    );
  }
  assign(config, parseConfigPath(path), value, `${path}=${json}`);
}

function assign(config: StackConfig, segments: readonly Segment[], value: unknown, edit: string): void {
  const [key, ...rest] = segments;
  const name = fullKey(key as string);
  if (rest.length === 0) {
    config[name] = value;
    return;
  }
  const container = (next: Segment): unknown => (typeof next === "number" ? [] : {});
  let parent: Record<string | number, unknown> = (config[name] ??= container(rest[0])) as Record<string, unknown>;
  if (typeof parent !== "object" || parent === null) throw new UsageError(`${key} is not an object or list`);
  for (let i = 0; i < rest.length; i++) {
    checkSegment(parent, segments, i + 1, edit.slice(edit.indexOf("=") + 1));
    if (i === rest.length - 1) break;
    const segment = rest[i];
    if (typeof parent[segment] !== "object" || parent[segment] === null) parent[segment] = container(rest[i + 1]);
    parent = parent[segment] as Record<string | number, unknown>;
  }
  parent[rest[rest.length - 1]] = value;
}

/**
 * Applies `pulumi config rm --path PATH` to a stack file's values: a list item is spliced out, a key
 * deleted; a top-level key deleted falls back to its Pulumi.yaml default (overDefaults). A path that is not
 * set is a usage error: the edit would change nothing.
 */
export function removePath(config: StackConfig, path: string): void {
  const [key, ...rest] = parseConfigPath(path);
  const name = fullKey(key as string);
  const missing = () => new UsageError(`--rm ${path}: the stack config has no ${path}`);
  if (!(name in config)) throw missing();
  if (rest.length === 0) {
    delete config[name];
    return;
  }
  let parent = config[name] as Record<string | number, unknown> | undefined;
  for (const segment of rest.slice(0, -1)) parent = parent?.[segment] as Record<string | number, unknown> | undefined;
  const last = rest[rest.length - 1];
  if (!parent || typeof parent !== "object" || !(last in parent)) throw missing();
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else delete parent[last];
}

/** The flat string map the Pulumi runtime holds: structured values as JSON, scalars as text. */
export function toRuntimeConfig(config: StackConfig): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)]),
  );
}

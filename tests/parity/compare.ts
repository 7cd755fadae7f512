/**
 * Semantic comparison of two sets of Kubernetes objects: objects by kind and name; ConfigMap data key by
 * key; workloads field by field, with containers, init containers, env, ports, mounts and volumes matched
 * by name and tolerations by key and effect (order does not matter, capability lists compare as sets);
 * RBAC rules as the set of (API group, resource, verb, resource name) grants they make. An object's own
 * metadata is not compared but for its namespace (pod templates' metadata is). Two objects of one kind and
 * name, or two list items with one key (e.g. two env entries of one name), are an error, never one
 * silently replacing the other.
 */
export interface KubeObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

export interface Difference {
  /** `Kind/name` then the field, e.g. `ConfigMap/cilium-config data.enable-hubble`. */
  path: string;
  chart: string | undefined;
  program: string | undefined;
}

type Leaves = Map<string, string>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function itemKey(item: unknown, i: number): string {
  if (!isObject(item)) return String(i);
  if (typeof item.name === "string") return item.name;
  if ("effect" in item || "tolerationSeconds" in item || (typeof item.key === "string" && "operator" in item)) {
    return `${item.key ?? "*"}:${item.effect ?? "*"}`;
  }
  return String(i);
}

function flatten(value: unknown, path: string, out: Leaves): void {
  if (Array.isArray(value)) {
    if (value.every((v) => !isObject(v) && !Array.isArray(v))) {
      const set = /\.(add|drop)$/.test(path) ? [...value].sort() : value;
      out.set(path, JSON.stringify(set));
      return;
    }
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const key = itemKey(item, i);
      if (seen.has(key)) throw new Error(`duplicate list item ${path}[${key}]`);
      seen.add(key);
      flatten(item, `${path}[${key}]`, out);
    });
    return;
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) out.set(path, "{}");
    for (const k of keys) flatten(value[k], path ? `${path}.${k}` : k, out);
    return;
  }
  // A null is an absent field, as the API server stores it (the chart writes `annotations: null`).
  if (value !== null) out.set(path, JSON.stringify(value));
}

/** What a role's rules grant, one string per (group, resource, verb, resource name). */
function grants(rules: unknown): Leaves {
  const out: Leaves = new Map();
  for (const rule of (rules ?? []) as Record<string, string[] | undefined>[]) {
    for (const group of rule.apiGroups ?? [""])
      for (const resource of rule.resources ?? [])
        for (const verb of rule.verbs ?? [])
          for (const name of rule.resourceNames ?? ["*"]) out.set(`grants ${group}/${resource} ${verb} ${name}`, "yes");
  }
  return out;
}

function leavesOf(o: KubeObject): Leaves {
  if (o.kind === "ClusterRole" || o.kind === "Role") return grants(o.rules);
  const out: Leaves = new Map();
  const { metadata, ...body } = o;
  if (metadata.namespace) out.set("metadata.namespace", JSON.stringify(metadata.namespace));
  flatten(body, "", out);
  return out;
}

/**
 * A Job is named after its spec's checksum (the chart's `hubble-generate-certs-<10 hex>`, so that a new spec
 * is a new Job): each side's checksum is its own, so Jobs compare by the name before it.
 */
const JOB_CHECKSUM = /-[0-9a-f]{10}$/;
const id = (o: KubeObject) =>
  `${o.kind}/${o.kind === "Job" ? o.metadata.name.replace(JOB_CHECKSUM, "") : o.metadata.name}`;

export function compareObjects(
  chart: KubeObject[],
  program: KubeObject[],
): { differences: Difference[]; compared: number } {
  const byId = (objects: KubeObject[]) => {
    const map = new Map<string, KubeObject>();
    for (const o of objects) {
      if (map.has(id(o))) throw new Error(`duplicate object ${id(o)}`);
      map.set(id(o), o);
    }
    return map;
  };
  const c = byId(chart);
  const p = byId(program);
  const differences: Difference[] = [];
  let compared = 0;
  for (const key of [...new Set([...c.keys(), ...p.keys()])].sort()) {
    const [inChart, inProgram] = [c.get(key), p.get(key)];
    if (!inChart || !inProgram) {
      differences.push({ path: key, chart: inChart && "present", program: inProgram && "present" });
      continue;
    }
    const [a, b] = [leavesOf(inChart), leavesOf(inProgram)];
    for (const field of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      compared++;
      if (a.get(field) !== b.get(field))
        differences.push({ path: `${key} ${field}`, chart: a.get(field), program: b.get(field) });
    }
  }
  return { differences, compared };
}

/**
 * The files `npm run plan -- --out DIR` writes: resources.json, outputs.json, and what a reviewer reads —
 * each Kubernetes object as YAML, each IAM policy document as JSON, each launch template's user data as
 * text and the kubeadm configuration it carries as YAML. Pure: a plan in, file names and contents out,
 * byte-identical for the same plan.
 */
import { stringify } from "yaml";
import { kubeadmConfigsOf } from "../components/nodes/userData";
import { decodeUserData } from "../components/nodes/userDataEncoding";
import type { Plan, PlannedResource } from "./run";

/** JSON with object keys sorted at every level, so output does not depend on registration order. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) + "\n";
}

const KUBERNETES_KEY_ORDER = ["apiVersion", "kind", "metadata"];

/** A Kubernetes object with apiVersion, kind and metadata first and the rest sorted. */
function kubernetesYaml(inputs: Record<string, unknown>): string {
  const rank = (k: string) =>
    KUBERNETES_KEY_ORDER.includes(k) ? KUBERNETES_KEY_ORDER.indexOf(k) : KUBERNETES_KEY_ORDER.length;
  return stringify(inputs, {
    sortMapEntries: (a, b) => rank(String(a.key)) - rank(String(b.key)) || String(a.key).localeCompare(String(b.key)),
    lineWidth: 0,
  });
}

const fileSafe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, "_");

function resourceArtifacts(r: PlannedResource): [string, string][] {
  const inputs = (r.inputs ?? {}) as Record<string, unknown>;
  if (r.type.startsWith("kubernetes:") && r.custom && !r.type.startsWith("kubernetes:index") && inputs.kind) {
    const meta = (inputs.metadata ?? {}) as { name?: string; namespace?: string };
    const name = [String(inputs.kind), meta.namespace, meta.name].filter(Boolean).join("-");
    return [[`kubernetes/${fileSafe(name.toLowerCase())}.yaml`, kubernetesYaml(inputs)]];
  }
  if (r.type === "aws:iam/rolePolicy:RolePolicy" && typeof inputs.policy === "string") {
    return [[`iam/${fileSafe(r.name)}.json`, stableJson(JSON.parse(inputs.policy))]];
  }
  if (r.type === "aws:iam/role:Role" && typeof inputs.assumeRolePolicy === "string") {
    return [[`iam/${fileSafe(r.name)}-trust.json`, stableJson(JSON.parse(inputs.assumeRolePolicy))]];
  }
  if (r.type === "aws:ec2/launchTemplate:LaunchTemplate" && typeof inputs.userData === "string") {
    const text = decodeUserData(inputs.userData);
    const kubeadm = Object.entries(kubeadmConfigsOf(text)).map(([file, yaml]): [string, string] => [
      `kubeadm/${fileSafe(r.name)}-${file}.yaml`,
      yaml,
    ]);
    return [[`userdata/${fileSafe(r.name)}.txt`, text], ...kubeadm];
  }
  return [];
}

export function planFiles(plan: Plan): Map<string, string> {
  const files = new Map<string, string>();
  // retainOnDelete only where set: a diff against this file must know which deletions leave the cloud alone.
  const recorded = plan.resources.map(({ urn, type, name, parent, custom, inputs, retainOnDelete }) => ({
    urn,
    type,
    name,
    parent,
    custom,
    inputs,
    ...(retainOnDelete ? { retainOnDelete } : {}),
  }));
  files.set("resources.json", stableJson(recorded));
  files.set("outputs.json", stableJson(plan.outputs));
  for (const r of plan.resources) for (const [name, text] of resourceArtifacts(r)) files.set(name, text);
  return new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

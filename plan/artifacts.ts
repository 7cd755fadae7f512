/**
 * The files `npm run plan -- --out DIR` writes: resources.json, outputs.json, and what a reviewer reads —
 * each Kubernetes object as YAML, each IAM policy document as JSON, each launch template's user data as
 * text and the kubeadm configuration it carries as YAML. In resources.json a launch template's user data is
 * the digest of what AWS receives, and its text is the file beside it: a change to one bootstrap module shows
 * as that module's lines in `userdata/`, not as a new block of base64. Pure: a plan in, file names and
 * contents out, byte-identical for the same plan; `resourcesFromFiles` is the inverse.
 */
import { createHash } from "crypto";
import { stringify } from "yaml";
import { kubeadmConfigsOf } from "../components/nodes/userData";
import { decodeUserData, encodeUserData } from "../components/nodes/userDataEncoding";
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

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
const userDataFile = (r: { name: string }) => `userdata/${fileSafe(r.name)}.txt`;
/** What resources.json holds in place of a launch template's user data: the SHA-256 of the encoded bytes. */
const DIGEST_PREFIX = "sha256:";
const userDataDigest = (encoded: string) => DIGEST_PREFIX + createHash("sha256").update(encoded).digest("hex");

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
  if (r.type === LAUNCH_TEMPLATE && typeof inputs.userData === "string") {
    const text = decodeUserData(inputs.userData);
    const kubeadm = Object.entries(kubeadmConfigsOf(text)).map(([file, yaml]): [string, string] => [
      `kubeadm/${fileSafe(r.name)}-${file}.yaml`,
      yaml,
    ]);
    return [[userDataFile(r), text], ...kubeadm];
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
    inputs: withUserDataDigest(type, inputs),
    ...(retainOnDelete ? { retainOnDelete } : {}),
  }));
  files.set("resources.json", stableJson(recorded));
  files.set("outputs.json", stableJson(plan.outputs));
  for (const r of plan.resources) for (const [name, text] of resourceArtifacts(r)) files.set(name, text);
  return new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

function withUserDataDigest(type: string, inputs: unknown): unknown {
  const userData = (inputs as Record<string, unknown> | undefined)?.userData;
  if (type !== LAUNCH_TEMPLATE || typeof userData !== "string") return inputs;
  return { ...(inputs as Record<string, unknown>), userData: userDataDigest(userData) };
}

/**
 * The resources of a plan written by `--out` (`read` gives a file of it by name), with each launch template's
 * user data encoded again from its text file, as the plan declared it (user data written inline, as in a
 * hand-made plan, stays as it is). A text that no longer matches its
 * digest (edited by hand, or a file missing) is refused: the plan it came from declared other bytes.
 */
export function resourcesFromFiles(read: (name: string) => string): PlannedResource[] {
  const resources = JSON.parse(read("resources.json")) as PlannedResource[];
  return resources.map((r) => {
    const inputs = r.inputs as Record<string, unknown> | undefined;
    const digest = inputs?.userData;
    if (r.type !== LAUNCH_TEMPLATE || typeof digest !== "string" || !digest.startsWith(DIGEST_PREFIX)) return r;
    const userData = encodeUserData(read(userDataFile(r)));
    if (userDataDigest(userData) !== digest) {
      throw new Error(`${userDataFile(r)} does not match the digest of ${r.name} in resources.json`);
    }
    return { ...r, inputs: { ...inputs, userData } };
  });
}

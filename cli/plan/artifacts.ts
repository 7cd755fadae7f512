/**
 * The files `npm run plan -- --out DIR` writes: resources.json, outputs.json, and what a reviewer reads —
 * each Kubernetes object as YAML, each IAM policy document as JSON, each script a node runs as text (a launch
 * template's user data, the loader; the group's installer it fetches from the bootstrap bucket; an add-on's SSM
 * apply document) and the kubeadm configuration the installer carries as YAML. resources.json holds a
 * script's digest in its place: a change to one bootstrap module shows as that module's lines in `bootstrap/`,
 * not as a new block of text. It names each Kubernetes object's file and
 * the digest of its inputs instead of repeating the object, so a change to one shows in one place. Pure: a
 * plan in, file names and contents out, byte-identical for the same plan; `resourcesFromFiles` is the inverse.
 */
import { createHash } from "crypto";
import { parse, stringify } from "yaml";
import { kubeadmConfigsOf } from "../../components/nodes/userData";
import { decodeUserData, encodeUserData } from "../../components/nodes/userDataEncoding";
import type { Plan, PlannedResource } from "./run";
import { BOOTSTRAP_SCRIPT } from "./clusterFacts";
import { byCodePoint } from "../../components/codePointOrder";

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
    sortMapEntries: (a, b) => rank(String(a.key)) - rank(String(b.key)) || byCodePoint(String(a.key), String(b.key)),
    lineWidth: 0,
  });
}

const fileSafe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, "_");

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
/** A group's installer object is named `<group>-bootstrap` (nodeLaunchTemplate.ts). */
const groupOfScript = (name: string) => name.replace(/-bootstrap$/, "");
const DIGEST_PREFIX = "sha256:";
const digest = (value: string) => DIGEST_PREFIX + createHash("sha256").update(value).digest("hex");

/**
 * A script in one input of a resource, kept as a text file. resources.json records the input with the
 * script's digest in its place, from which the script's file puts it back.
 */
interface CarriedScript {
  type: string;
  input: string;
  file: (name: string) => string;
  /** The input's value → the file's text. */
  text: (value: string) => string;
  /** The input's value → what resources.json records; `digestIn` reads the digest back out of that. */
  record: (value: string) => string;
  digestIn: (recorded: string) => string | undefined;
  /** The file's text, and what resources.json records → the input's value. */
  value: (text: string, recorded: string) => string;
}

type SsmCommandDocument = { mainSteps: { inputs: { runCommand: string[] } }[] };
const ssmDocument = (content: string) => JSON.parse(content) as SsmCommandDocument;

const CARRIED_SCRIPTS: CarriedScript[] = [
  {
    // What AWS receives is gzip in base64 (userDataEncoding.ts): the same bytes for the same text.
    type: LAUNCH_TEMPLATE,
    input: "userData",
    file: (name) => `userdata/${fileSafe(name)}.txt`,
    text: decodeUserData,
    record: digest,
    digestIn: (recorded) => recorded,
    value: (text) => encodeUserData(text),
  },
  {
    // A group's installer in the bootstrap bucket (bootstrapBundle.ts), as S3 serves it to the loader.
    type: BOOTSTRAP_SCRIPT,
    input: "content",
    file: (name) => `bootstrap/${fileSafe(groupOfScript(name))}.sh`,
    text: (value) => value,
    record: digest,
    digestIn: (recorded) => recorded,
    value: (text) => text,
  },
  {
    // An add-on's apply document (applyScript.ts): resources.json keeps the document, with its one step's
    // lines replaced by the digest of the whole document.
    type: "aws:ssm/document:Document",
    input: "content",
    file: (name) => `ssm/${fileSafe(name)}.sh`,
    text: (value) => `${ssmDocument(value).mainSteps[0].inputs.runCommand.join("\n")}\n`,
    record: (value) => withScript(value, [digest(value)]),
    digestIn: (recorded) => {
      const lines = ssmDocument(recorded).mainSteps[0].inputs.runCommand;
      return lines.length === 1 ? lines[0] : undefined;
    },
    value: (text, recorded) => withScript(recorded, text.replace(/\n$/, "").split("\n")),
  },
];

function withScript(content: string, lines: string[]): string {
  const document = ssmDocument(content);
  document.mainSteps[0].inputs.runCommand = lines;
  return JSON.stringify(document);
}

/** The script the input `input` of a resource of type `type` carries: its text, and the file --out writes. */
export function carriedScriptOf(type: string, input: string): Pick<CarriedScript, "text" | "file"> | undefined {
  return CARRIED_SCRIPTS.find((c) => c.type === type && c.input === input);
}

function carriedScript(r: { type: string; inputs: unknown }): [CarriedScript, string] | undefined {
  const inputs = (r.inputs ?? {}) as Record<string, unknown>;
  const carried = CARRIED_SCRIPTS.find((c) => c.type === r.type && typeof inputs[c.input] === "string");
  return carried && [carried, inputs[carried.input] as string];
}

/** A Kubernetes object's file under kubernetes/, for a resource that declares one; undefined for any other. */
function kubernetesFile(r: { type: string; custom?: boolean; inputs: unknown }): string | undefined {
  const inputs = (r.inputs ?? {}) as Record<string, unknown>;
  if (!r.type.startsWith("kubernetes:") || !r.custom || r.type.startsWith("kubernetes:index") || !inputs.kind)
    return undefined;
  const meta = (inputs.metadata ?? {}) as { name?: string; namespace?: string };
  const name = [String(inputs.kind), meta.namespace, meta.name].filter(Boolean).join("-");
  return `kubernetes/${fileSafe(name.toLowerCase())}.yaml`;
}

/** What resources.json records of a Kubernetes object: its file and the digest of its inputs. */
interface RecordedObject {
  file: string;
  digest: string;
}

const recordedObject = (inputs: unknown): RecordedObject | undefined => {
  const fields = inputs as Partial<RecordedObject> | undefined;
  return typeof fields?.file === "string" && fields.file.startsWith("kubernetes/") && typeof fields.digest === "string"
    ? { file: fields.file, digest: fields.digest }
    : undefined;
};

function recordedInputs(r: PlannedResource): unknown {
  const objectFile = kubernetesFile(r);
  if (objectFile) return { file: objectFile, digest: digest(stableJson(r.inputs)) } satisfies RecordedObject;
  const found = carriedScript(r);
  if (!found) return r.inputs;
  const [carried, value] = found;
  return { ...(r.inputs as Record<string, unknown>), [carried.input]: carried.record(value) };
}

function resourceArtifacts(r: PlannedResource): [string, string][] {
  const inputs = (r.inputs ?? {}) as Record<string, unknown>;
  const objectFile = kubernetesFile(r);
  if (objectFile) return [[objectFile, kubernetesYaml(inputs)]];
  if (r.type === "aws:iam/policy:Policy" && typeof inputs.policy === "string") {
    return [[`iam/${fileSafe(r.name)}.json`, stableJson(JSON.parse(inputs.policy))]];
  }
  if (r.type === "aws:iam/role:Role" && typeof inputs.assumeRolePolicy === "string") {
    return [[`iam/${fileSafe(r.name)}-trust.json`, stableJson(JSON.parse(inputs.assumeRolePolicy))]];
  }
  const found = carriedScript(r);
  if (!found) return [];
  const [carried, value] = found;
  const text = carried.text(value);
  const kubeadm = Object.entries(carried.type === BOOTSTRAP_SCRIPT ? kubeadmConfigsOf(text) : {}).map(
    ([file, yaml]): [string, string] => [`kubeadm/${fileSafe(groupOfScript(r.name))}-${file}.yaml`, yaml],
  );
  return [[carried.file(r.name), text], ...kubeadm];
}

export function planFiles(plan: Plan): Map<string, string> {
  const files = new Map<string, string>();
  // retainOnDelete only where set: a diff against this file must know which deletions leave the cloud alone.
  const recorded = plan.resources.map((r) => ({
    urn: r.urn,
    type: r.type,
    name: r.name,
    parent: r.parent,
    custom: r.custom,
    inputs: recordedInputs(r),
    ...(r.retainOnDelete ? { retainOnDelete: r.retainOnDelete } : {}),
  }));
  files.set("resources.json", stableJson(recorded));
  files.set("outputs.json", stableJson(plan.outputs));
  for (const r of plan.resources)
    for (const [name, text] of resourceArtifacts(r)) {
      // resources.json names a Kubernetes object by its file: two resources may not write one.
      if (files.has(name)) throw new Error(`${r.name} writes ${name}, which another resource of the plan writes too`);
      files.set(name, text);
    }
  return new Map([...files.entries()].sort(([a], [b]) => byCodePoint(a, b)));
}

/**
 * The resources of a plan written by `--out` (`read` gives a file of it by name), with each Kubernetes
 * object and each carried script put back from its file, as the plan declared it (an input written inline, as in a hand-made plan,
 * stays as it is). A text that no longer matches its digest (edited by hand, or a file missing) is refused:
 * the plan it came from declared other bytes.
 */
export function resourcesFromFiles(read: (name: string) => string): PlannedResource[] {
  const resources = JSON.parse(read("resources.json")) as PlannedResource[];
  return resources.map((r) => {
    const object = r.type.startsWith("kubernetes:") ? recordedObject(r.inputs) : undefined;
    if (object) {
      const inputs = parse(read(object.file)) as unknown;
      if (digest(stableJson(inputs)) !== object.digest)
        throw new Error(`${object.file} does not match the digest of ${r.name} in resources.json`);
      return { ...r, inputs };
    }
    const found = carriedScript(r);
    if (!found) return r;
    const [carried, recorded] = found;
    const expected = carried.digestIn(recorded);
    if (!expected?.startsWith(DIGEST_PREFIX)) return r;
    const value = carried.value(read(carried.file(r.name)), recorded);
    if (digest(value) !== expected) {
      throw new Error(`${carried.file(r.name)} does not match the digest of ${r.name} in resources.json`);
    }
    return { ...r, inputs: { ...(r.inputs as Record<string, unknown>), [carried.input]: value } };
  });
}

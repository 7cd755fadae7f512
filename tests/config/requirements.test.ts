// The rules across keys the schema holds as data (`requires`): each feature's, both ways, read from its
// module; and the two fixes a requirement prints.
import { expect } from "chai";
import { CILIUM_FEATURES } from "../../components/cilium/features/ciliumFeatures";
import { CONFIG_TREE } from "../../config/schema";
import type { AnyField, Requirement } from "../../config/schemaTypes";
import { fieldAt } from "../../config/validation/fixHints";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

/** Every boolean key of a fragment with requirements, by its full path below `networking.cilium`. */
function requirementsOf(tree: Record<string, AnyField>, prefix: string): [string, Requirement][] {
  return Object.entries(tree).flatMap(([key, field]) => {
    const path = `${prefix}.${key}`;
    if (field.kind === "object") return requirementsOf(field.fields, path);
    return field.kind === "boolean" ? (field.requires ?? []).map((r): [string, Requirement] => [path, r]) : [];
  });
}

const errorsOf = (raw: Raw) => validateConfig(raw, REGION).errors;

const valueAt = (spec: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], spec);

/** A config edit that sets one dotted path. */
const atPath = (path: string, value: unknown): Raw =>
  path
    .split(".")
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Raw;

describe("rules across keys, from the features' schema", () => {
  for (const feature of CILIUM_FEATURES) {
    for (const [path, requirement] of requirementsOf(feature.schema, "networking.cilium")) {
      it(`${path} requires ${requirement.path}: ${requirement.equals}`, () => {
        // The feature's config that turns this key on, which meets its requirement.
        const on = Object.values(feature.cases.on)
          .map((edit) => merge(baseConfig(), edit))
          .find((raw) => valueAt(validateConfig(raw, REGION).spec, path) === true);
        expect(on, `a case of ${feature.name} turns ${path} on`).to.not.equal(undefined);
        expect(errorsOf(on!), "the feature's own config").to.deep.equal([]);
        const other = typeof requirement.equals === "boolean" ? !requirement.equals : `not-${requirement.equals}`;
        const error = errorsOf(merge(on!, atPath(requirement.path, other))).find((e) => e.field === path);
        expect(error, `an error on ${path}`).to.include({ type: "Forbidden", detail: requirement.detail });
      });
    }
  }

  it("names in every requirement of the schema a key of the kind of its value, and none sits in a list", () => {
    const problems: string[] = [];
    const walk = (tree: Record<string, AnyField>, prefix: string, inList: boolean) => {
      for (const [key, field] of Object.entries(tree)) {
        const path = prefix ? `${prefix}.${key}` : key;
        if (field.kind === "object") walk(field.fields, path, inList);
        if (field.kind === "array" && field.items.kind === "object") walk(field.items.fields, `${path}[]`, true);
        if (field.kind !== "boolean" || !field.requires) continue;
        if (inList) problems.push(`${path}: requirements are checked at fixed paths, not in list items`);
        for (const r of field.requires) {
          const target = fieldAt(r.path);
          if (target?.kind !== typeof r.equals) problems.push(`${path} requires ${r.path}, no ${typeof r.equals} key`);
        }
      }
    };
    walk(CONFIG_TREE, "", false);
    expect(problems).to.deep.equal([]);
  });

  it("finds the features' requirements: Hubble's relay and BPF masquerade's two", () => {
    const all = CILIUM_FEATURES.flatMap((f) => requirementsOf(f.schema, "networking.cilium").map(([p]) => p));
    expect(all).to.deep.equal([
      "networking.cilium.bpfMasquerade",
      "networking.cilium.bpfMasquerade",
      "networking.cilium.hubble.relay",
    ]);
  });
});

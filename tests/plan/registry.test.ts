// Tables keyed by resource type: every type any example declares is classified in each of them.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import * as ts from "typescript";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { forcesReplacement, isReplaceClassified, REPLACE_ON_CHANGE } from "../../cli/plan/replaceKeys";
import { runPlan } from "../../cli/plan/run";
import { loadStackConfig } from "../../cli/plan/stackConfig";
import { isTagClassified, TAGGABLE, UNTAGGED } from "../../cli/policy/taggable";

/** Whether the SDK's `<Class>Args` for a type token like `aws:ec2/vpc:Vpc` has a `tags` input. */
function sdkArgsTakeTags(type: string): boolean {
  const [pkg, module, className] = type.split(":");
  const file = join(PROJECT_DIR, "node_modules", "@pulumi", pkg, `${module.replace(/^index\//, "")}.d.ts`);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const args = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === `${className}Args`,
  );
  if (!args) throw new Error(`${file} declares no ${className}Args`);
  return args.members.some((m) => m.name !== undefined && ts.isIdentifier(m.name) && m.name.text === "tags");
}

describe("resource type registry", () => {
  const declared = new Set<string>();
  before(async () => {
    for (const example of examples()) {
      const plan = await runPlan(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file), example.name);
      for (const r of plan.resources) if (r.custom) declared.add(r.type);
    }
  });

  it("classifies every type any example declares in the plan's replace-on-change table", () => {
    expect(declared.size).to.be.greaterThan(20);
    expect([...declared].filter((t) => !isReplaceClassified(t))).to.deep.equal([]);
  });

  it("classifies every type any example declares as taggable or not in the policy pack", () => {
    expect([...declared].filter((t) => !isTagClassified(t))).to.deep.equal([]);
  });

  it("calls a new kind of cluster key a replacement, and a change of its rotation or policy not", () => {
    expect(forcesReplacement("aws:kms/key:Key", "keySpec")).to.equal(true);
    for (const input of ["enableKeyRotation", "policy", "description"])
      expect(forcesReplacement("aws:kms/key:Key", input), input).to.equal(false);
    expect(forcesReplacement("aws:kms/alias:Alias", "name")).to.equal(true);
  });

  it("says a type takes tags exactly when the provider SDK gives it a tags input", () => {
    const sdkTypes = [...TAGGABLE, ...Object.keys(UNTAGGED)].filter((t) => /^(aws|tls|random):[\w/]+:\w+$/.test(t));
    expect(sdkTypes.length).to.be.greaterThan(20);
    for (const type of sdkTypes) expect(sdkArgsTakeTags(type), type).to.equal(TAGGABLE.has(type));
  });

  it("keeps no type in both tables, and none no example declares", () => {
    for (const type of TAGGABLE) expect(type in UNTAGGED, type).to.equal(false);
    const classified = [...TAGGABLE, ...Object.keys(UNTAGGED), ...Object.keys(REPLACE_ON_CHANGE)];
    expect(classified.filter((t) => !declared.has(t))).to.deep.equal([]);
  });
});

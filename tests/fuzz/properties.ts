/** The fuzzing properties, shared by `npm test` (a few hundred cases) and `npm run fuzz` (thousands). */
import { expect } from "chai";
import fc from "fast-check";
import { runPlan } from "../../cli/plan/run";
import { CONFIG_TREE } from "../../config/schema";
import type { AnyField } from "../../config/schemaTypes";
import { validateConfig } from "../../components/clusterConfigValidation";
import { PROJECT, readRawConfig } from "../../config/read";
import { toRuntimeConfig } from "../../cli/plan/stackConfig";
import { brokenConfig, REGION, validConfig } from "./arbitraries";

type Raw = Record<string, unknown>;

/** Splits `a.b[0]["c"]` into segments. */
export function segments(path: string): (string | number)[] {
  return [...path.matchAll(/\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|([^.[\]]+)/g)].map((m) =>
    m[1] !== undefined ? JSON.parse(`"${m[1]}"`) : m[2] !== undefined ? Number(m[2]) : m[3],
  );
}

function inInput(raw: Raw, path: (string | number)[]): boolean {
  let node: unknown = raw;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !(key in (node as object))) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return true;
}

export function inSchema(path: (string | number)[]): boolean {
  let fields: Record<string, AnyField> | undefined = CONFIG_TREE;
  let field: AnyField | undefined;
  for (const key of path) {
    if (field?.kind === "array" && typeof key === "number") field = field.items;
    else if (field?.kind === "map") return true;
    else if (fields && typeof key === "string" && key in fields) field = fields[key];
    else return false;
    fields = field.kind === "object" ? field.fields : undefined;
  }
  return true;
}

/** Validation never throws, accepts every valid config, and names only paths the user wrote or can set. */
export function checkValidation(numRuns: number): void {
  fc.assert(
    fc.property(validConfig, (raw) => {
      expect(validateConfig(raw, REGION).errors).to.deep.equal([]);
    }),
    { numRuns },
  );
  fc.assert(
    fc.property(brokenConfig, (raw) => {
      const { errors } = validateConfig(raw, REGION);
      for (const e of errors) {
        const path = segments(e.field);
        expect(inInput(raw, path) || inSchema(path), e.field).to.equal(true);
      }
    }),
    { numRuns },
  );
}

const stackConfig = (raw: Raw) => ({
  "aws:region": REGION,
  ...Object.fromEntries(Object.entries(raw).map(([k, v]) => [`${PROJECT}:${k}`, v])),
});

/** Every valid config plans without an exception; a config that fails validation registers nothing. */
export async function checkPlans(numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(validConfig, async (raw) => {
      const plan = await runPlan(stackConfig(raw), "fuzz");
      expect(plan.errors).to.equal(undefined);
      expect(plan.resources.length).to.be.greaterThan(50);
    }),
    { numRuns },
  );
  await fc.assert(
    fc.asyncProperty(brokenConfig, async (raw) => {
      // Judge the config as the program receives it: Pulumi hands top-level values over as text.
      const received = readRawConfig(toRuntimeConfig(stackConfig(raw))).raw;
      if (validateConfig(received, REGION).errors.length === 0) return;
      const plan = await runPlan(stackConfig(raw), "fuzz");
      expect(plan.errors?.length).to.be.greaterThan(0);
      expect(plan.resources.map((r) => r.type)).to.deep.equal(["pulumi:pulumi:Stack"]);
    }),
    { numRuns },
  );
}

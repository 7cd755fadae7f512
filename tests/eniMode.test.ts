// ENI mode is one decision with one predicate (config/eniMode.ts): no product file compares `ipam` with
// "eni" itself, where a second test of the mode could drift from the first.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join, relative } from "path";
import { PROJECT_DIR } from "../cli/plan/examples";
import { productFiles } from "./productFiles";

const PREDICATE = join("config", "eniMode.ts");
/** A comparison with the mode's value, either way round. */
const COMPARISON = /[!=]==?\s*["']eni["']|["']eni["']\s*[!=]==?/;

/** FILE:LINE of each comparison with "eni" in TEXT. */
const comparisons = (file: string, text: string) =>
  text.split("\n").flatMap((line, i) => (COMPARISON.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));

describe("ENI mode's one predicate", () => {
  it('is the only place that compares ipam with "eni"', () => {
    const found = productFiles()
      .map((f) => relative(PROJECT_DIR, f))
      .filter((f) => f !== PREDICATE)
      .flatMap((f) => comparisons(f, readFileSync(join(PROJECT_DIR, f), "utf8")));
    expect(found).to.deep.equal([]);
    expect(comparisons(PREDICATE, readFileSync(join(PROJECT_DIR, PREDICATE), "utf8"))).to.have.length(1);
  });

  it("finds a comparison either way round", () => {
    for (const line of ['if (spec.networking.cilium.ipam !== "eni") return [];', "const eni = 'eni' === ipam;"])
      expect(comparisons("x.ts", line), line).to.have.length(1);
    expect(comparisons("x.ts", 'enum: ["", "crd", "eni"],')).to.deep.equal([]);
  });
});

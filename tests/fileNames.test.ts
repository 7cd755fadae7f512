// Each product file's name says what it holds: no two share one (the policy pack's own package files aside,
// whose names npm and TypeScript fix).
import { expect } from "chai";
import { execFileSync } from "child_process";
import { basename } from "path";
import { PROJECT_DIR } from "../cli/plan/examples";

const NOT_PRODUCT = /^(tests|docs|examples|tools)\/|^cli\/policy\/(package(-lock)?|tsconfig)\.json$/;

describe("file names", () => {
  it("no two product files share a name", () => {
    const files = execFileSync("git", ["ls-files"], { cwd: PROJECT_DIR, encoding: "utf8" })
      .split("\n")
      .filter((f) => f && !NOT_PRODUCT.test(f));
    expect(files.length).to.be.greaterThan(100);
    const byName = new Map<string, string[]>();
    for (const f of files) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
    expect([...byName.values()].filter((same) => same.length > 1)).to.deep.equal([]);
  });
});

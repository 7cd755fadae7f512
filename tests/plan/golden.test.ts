// Golden renders: every example's --out files must match tests/golden/<example>/ exactly.
import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "fs";
import { join, relative } from "path";
import { examples, GOLDEN_DIR } from "../../cli/plan/examples";
import { renderStackFiles } from "../../cli/plan/render";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("golden renders (npm run update-expected rewrites them)", () => {
  for (const example of examples()) {
    it(`${example.name} matches tests/golden/${example.name}`, async () => {
      const dir = join(GOLDEN_DIR, example.name);
      const rendered = await renderStackFiles(example.file, example.name);
      const onDisk = filesUnder(dir)
        .map((f) => relative(dir, f))
        .sort();
      expect([...rendered.keys()].sort(), "the set of files; run npm run update-expected").to.deep.equal(onDisk);
      for (const [name, text] of rendered) {
        expect(text, `${example.name}/${name} is stale; run npm run update-expected`).to.equal(
          readFileSync(join(dir, name), "utf8"),
        );
      }
    });
  }
});

// The docs stay true: every `npm run plan` command in them runs, every other script and config key they name exists.
import { expect } from "chai";
import { execFileSync } from "child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { main } from "../cli/plan/cli";
import { PROJECT_DIR } from "../cli/plan/examples";
import { inSchema, segments } from "./fuzz/properties";
import { dollars, monthlyCost } from "./monthlyCost";
import { goldenResources } from "./planHelpers";

const docs = ["README.md", ...readdirSync(join(PROJECT_DIR, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);
const text = (file: string) => readFileSync(join(PROJECT_DIR, file), "utf8");
const scripts = Object.keys(JSON.parse(text("package.json")).scripts);

const matches = (pattern: RegExp) =>
  docs.flatMap((file) => [...text(file).matchAll(pattern)].map((m) => ({ file, match: m })));

describe("documentation", function () {
  this.timeout(120000);

  it("states the Node requirement that package.json and the locked Pulumi SDK declare", () => {
    const engines = (JSON.parse(text("package.json")) as { engines: { node: string } }).engines.node;
    const sdk = (JSON.parse(text("node_modules/@pulumi/pulumi/package.json")) as { engines: { node: string } }).engines;
    expect(engines).to.equal(sdk.node);
    expect(text("README.md")).to.contain(`Node.js ${engines.replace(/^>=/, "")} or newer`);
    expect(text("README.md")).to.contain(`declares \`node ${sdk.node}\``);
  });

  it("names only npm scripts that exist", () => {
    const named = matches(/npm run ([a-z-]+)/g);
    expect(named.length).to.be.greaterThan(10);
    for (const { file, match } of named) expect(scripts, `${file}: npm run ${match[1]}`).to.include(match[1]);
  });

  it("every npm run plan command in the docs runs", async () => {
    const commands = matches(/npm run plan -- ([^`\n|]+)/g)
      // `...` marks a placeholder in prose, not a command.
      .filter(({ match }) => !match[1].includes("..."))
      .map(({ file, match }) => ({
        file,
        argv: match[1]
          .trim()
          .replace(/[.,:;]$/, "")
          .split(/\s+/)
          .map((a) => a.replace(/^'|'$/g, "")),
      }));
    expect(commands.length).to.be.greaterThan(5);
    const out = mkdtempSync(join(tmpdir(), "docs-"));
    for (const { file, argv } of commands) {
      const args = argv.map((a) => (a === "plan-out" || a === "DIR" ? join(out, "plan") : a));
      let err = "";
      const code = await main(args, { out: () => undefined, err: (t) => (err += t) });
      expect(code, `${file}: npm run plan -- ${argv.join(" ")}\n${err}`).to.equal(0);
    }
  });

  it("names only config keys that exist", () => {
    const keys = [
      ...matches(/pulumi config set (?:--path )?'?([A-Za-z][\w.:[\]"-]*)'?/g),
      ...matches(/--set ([A-Za-z][\w.[\]-]*)=/g),
    ].map(({ file, match }) => ({ file, key: match[1] }));
    expect(keys.length).to.be.greaterThan(10);
    for (const { file, key } of keys) {
      if (key.includes(":") || /^[A-Z]+$/.test(key)) continue; // other namespaces (aws:region), placeholders (PATH)
      expect(inSchema(segments(key)), `${file}: ${key}`).to.equal(true);
    }
  });

  it("links only to files that exist", () => {
    for (const { file, match } of matches(/\]\(((?!https?:|#)[^)#]+)[^)]*\)/g)) {
      expect(existsSync(join(PROJECT_DIR, dirname(file), match[1])), `${file}: ${match[1]}`).to.equal(true);
    }
  });

  /** The rows (file, holds) of the table after the marker that starts with `marker`. */
  const tableAfter = (guide: string, marker: string) =>
    guide
      .slice(guide.indexOf(marker))
      .split("\n\n")[1]
      .split("\n")
      .slice(2)
      .map((row) => row.split("|").map((cell) => cell.trim().replace(/^`|`$/g, "")))
      .map(([, file, holds]) => ({ file, holds }));

  it("walks adding an option through the hand-edited files of its commit, at most eight, each holding what the walk says", function () {
    const guide = text("docs/adding-a-feature.md");
    const option = /^## The walk: `([\w.]+)`$/m.exec(guide)![1];
    expect(inSchema(segments(option)), option).to.equal(true);
    const marker = /<!-- walk: commit ([0-9a-f]{7,40});/.exec(guide);
    expect(marker, "the walk names its commit").to.not.equal(null);
    const commit = marker![1];
    const rows = tableAfter(guide, "<!-- walk:");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: PROJECT_DIR, encoding: "utf8" });
    // A shallow clone holds no history to read the commit from; .ci/run cannot add it, so this skips there.
    if (git("rev-parse", "--is-shallow-repository").trim() === "true") {
      process.stderr.write(`skipped the walk's commit check: a shallow clone lacks commit ${commit}\n`);
      this.skip();
    }
    for (const { file, holds } of rows)
      expect(git("show", `${commit}:${file}`), `${file} held ${holds}`).to.contain(holds);
    // Hand-edited: every file the commit changed but the goldens and the files `npm run generate` writes,
    // which say so in their first lines.
    const generated = (file: string) =>
      /Generated .*`npm run generate`/.test(git("show", `${commit}:${file}`).slice(0, 600));
    const handEdited = git("show", "--name-only", "--format=", commit)
      .split("\n")
      .filter((file) => file && !file.startsWith("tests/golden/") && !generated(file));
    expect(rows.map((r) => r.file).sort()).to.deep.equal(handEdited.sort());
    expect(handEdited.length).to.be.within(1, 8);
  });

  it("says which files the same option touches today, at most eight, each holding what it says", () => {
    const rows = tableAfter(text("docs/adding-a-feature.md"), "<!-- today:");
    expect(rows.length).to.be.within(1, 8);
    for (const { file, holds } of rows) {
      expect(existsSync(join(PROJECT_DIR, file)), file).to.equal(true);
      expect(text(file), `${file} holds ${holds}`).to.contain(holds);
    }
  });

  it("states what the dev and HA stacks cost a month, as their plans add up at the recorded prices", () => {
    const readme = text("README.md");
    for (const [stack, heading] of [
      ["dev", "The dev stack"],
      ["ha", "The HA example"],
    ]) {
      const table = readme.slice(readme.indexOf(`**${heading}**`)).split("\n\n")[1];
      const rows = table
        .split("\n")
        .slice(2)
        .map((row) =>
          row
            .split("|")
            .slice(1, -1)
            .map((cell) => cell.trim()),
        );
      const items = monthlyCost(goldenResources(stack));
      const total = items.reduce((sum, i) => sum + i.monthly, 0);
      expect(rows, `${heading} in README.md`).to.deep.equal([
        ...items.map((i) => [i.item, String(i.count), dollars(i.monthly)]),
        ["**total**", "", `**${dollars(total)}**`],
      ]);
    }
  });
});

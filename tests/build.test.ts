// The compiled program (npm run build): it is what Pulumi.yaml runs, it matches the sources and behaves as
// they do, and a build older than its sources refuses to run.
import { expect } from "chai";
import { spawnSync } from "child_process";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "fs";
import { tmpdir } from "os";
import { join, relative } from "path";
import { parse } from "yaml";
import { BUILD_DIR, BUILD_INPUTS, COMPILED_ROOTS, differences, STAMP_FILE, staleBuild, stampOf } from "../buildStamp";
import { NODE_ARGS } from "../nodeArgs";
import { GOLDEN_DIR, PROJECT_DIR } from "../plan/examples";
import { build } from "../scripts/compile";

const read = (file: string) => readFileSync(join(PROJECT_DIR, file), "utf8");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the compiled program (npm run build)", function () {
  this.timeout(180000);
  const scratch = mkdtempSync(join(tmpdir(), "build-test-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("is what Pulumi.yaml runs: bin/index.js, with the nodejs runtime's TypeScript support off", () => {
    const project = parse(read("Pulumi.yaml")) as { runtime: unknown; main?: string };
    expect(project.runtime).to.deep.equal({
      name: "nodejs",
      options: { typescript: false, nodeargs: NODE_ARGS.join(" ") },
    });
    // With no `main` in Pulumi.yaml, the runtime loads package.json's `main`: the compiled index.ts.
    expect(project.main).to.equal(undefined);
    const main = (JSON.parse(read("package.json")) as { main: string }).main;
    expect(main).to.equal(`${BUILD_DIR}/index.js`);
    expect(COMPILED_ROOTS).to.include("index.ts");
    expect(statSync(join(PROJECT_DIR, main)).isFile()).to.equal(true);
  });

  it("in bin/ matches the sources (npm test builds it first)", () => {
    expect(staleBuild(PROJECT_DIR)).to.equal(undefined);
  });

  it("plans the dev stack exactly as the sources do, with no TypeScript compiler registered", () => {
    const out = join(scratch, "dev");
    // Whether a TypeScript compiler was registered by the time the process ended, written to a file.
    const probe = join(scratch, "ts-compiler");
    const report = `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(probe)}, String(require.extensions['.ts'] !== undefined)))`;
    const run = spawnSync(
      process.execPath,
      [
        "-e",
        `${report}; process.argv.push('plan.js', '--out', ${JSON.stringify(out)}); require('./${BUILD_DIR}/scripts/plan.js')`,
      ],
      { cwd: PROJECT_DIR, encoding: "utf8" },
    );
    expect(run.status, run.stderr).to.equal(0);
    expect(readFileSync(probe, "utf8")).to.equal("false");
    const golden = join(GOLDEN_DIR, "dev");
    const rendered = (dir: string) =>
      Object.fromEntries(filesUnder(dir).map((file) => [relative(dir, file), readFileSync(file, "utf8")]));
    expect(rendered(out)).to.deep.equal(rendered(golden));
  });

  it("names every file that differs from the build's stamp", () => {
    const built = { files: { "a.ts": "1", "b.ts": "2", "c.ts": "3" }, seen: {}, at: 0 };
    const now = { files: { "a.ts": "1", "b.ts": "changed", "d.ts": "4" }, seen: {}, at: 0 };
    expect(differences(built, now)).to.deep.equal(["changed: b.ts", "added: d.ts", "removed: c.ts"]);
    expect(differences(built, built)).to.deep.equal([]);
  });

  it("reads again only the files whose stat changed since they were hashed, or that changed no earlier", () => {
    const root = join(scratch, "stat");
    const file = join(root, "config", "a.ts");
    mkdirSync(join(root, "config"), { recursive: true });
    writeFileSync(file, "export const a = 1;\n");
    const stamp = stampOf(root);
    expect(Object.keys(stamp.files)).to.deep.equal(["config/a.ts"]);
    // A recorded hash is trusted while the file's stat is the one recorded with it, taken after its last change...
    const later = { ...stamp, files: { "config/a.ts": "recorded" }, at: statSync(file).ctimeMs + 1000 };
    expect(stampOf(root, later).files["config/a.ts"]).to.equal("recorded");
    // ... not when the stat was taken in the tick of the change, which could leave the stat as it was ...
    const racy = { ...later, at: statSync(file).ctimeMs };
    expect(stampOf(root, racy).files["config/a.ts"]).to.equal(stamp.files["config/a.ts"]);
    // ... and not once the file is written to, even with the same size and its old modification time.
    const { mtime } = statSync(file);
    writeFileSync(file, "export const a = 2;\n");
    utimesSync(file, mtime, mtime);
    const now = stampOf(root, { ...later, at: Date.now() + 1000 }).files["config/a.ts"];
    expect(now).to.equal(stampOf(root).files["config/a.ts"]);
    expect(now).not.to.equal(stamp.files["config/a.ts"]);
  });

  it("refuses to run once its sources change, or without a stamp, naming what differs and the fix", async () => {
    const root = join(scratch, "project");
    for (const path of [...COMPILED_ROOTS, ...BUILD_INPUTS, "Pulumi.yaml", "package.json"]) {
      cpSync(join(PROJECT_DIR, path), join(root, path), { recursive: true });
    }
    symlinkSync(join(PROJECT_DIR, "node_modules"), join(root, "node_modules"));
    expect(await build(root)).to.equal(true);
    expect(await build(root), "an up-to-date build does nothing").to.equal(false);

    const load = () =>
      spawnSync(process.execPath, ["-e", `require(${JSON.stringify(join(root, BUILD_DIR, "index.js"))})`], {
        encoding: "utf8",
      });
    expect(load().status, load().stderr).to.equal(0);

    appendFileSync(join(root, "program.ts"), "\n// edited after the build\n");
    const stale = load();
    expect(stale.status).not.to.equal(0);
    expect(stale.stderr).to.contain(
      `The compiled program in ${BUILD_DIR}/ was built from other sources (changed: program.ts)`,
    );
    expect(stale.stderr).to.contain("run `npm run build`");

    expect(await build(root)).to.equal(true);
    expect(load().status).to.equal(0);
    rmSync(join(root, BUILD_DIR, STAMP_FILE));
    expect(load().stderr).to.contain(`The compiled program in ${BUILD_DIR}/ has no build stamp`);
  });
});

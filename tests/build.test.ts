// The compiled tools (npm run build): bin/ matches the sources and plans as they do. Pulumi.yaml runs the
// program from its sources, so an edit is what the next preview runs, and a bug shows its stack trace.
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
import { BUILD_DIR, differences, staleBuild, stampOf } from "../devtools/buildStamp";
import { NODE_ARGS } from "../cli/nodeArgs";
import { GOLDEN_DIR, PROJECT_DIR } from "../cli/plan/examples";

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

  it("is not what Pulumi.yaml runs: the CLI runs index.ts through ts-node, transpiled by swc", () => {
    const project = parse(read("Pulumi.yaml")) as { runtime: unknown; main?: string };
    expect(project.runtime).to.deep.equal({
      name: "nodejs",
      options: { typescript: true, nodeargs: NODE_ARGS.join(" ") },
    });
    expect(project.main).to.equal("index.ts");
    const tsconfig = JSON.parse(read("tsconfig.json")) as { "ts-node"?: unknown };
    expect(tsconfig["ts-node"]).to.deep.equal({ transpileOnly: true, swc: true });
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
        `${report}; process.argv.push('plan.js', '--out', ${JSON.stringify(out)}); require('./${BUILD_DIR}/cli/plan.js')`,
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

  describe("a project whose sources were edited after the build", () => {
    const root = join(scratch, "project");
    // The program's sources, and the plan's.
    const SOURCES = ["index.ts", "config", "catalogs", "components", "cli/plan", "cli/callerPath.ts"];
    before(() => {
      for (const path of [...SOURCES, "cli/plan.ts", "tsconfig.json", "Pulumi.yaml", "Pulumi.dev.yaml", "package.json"])
        cpSync(join(PROJECT_DIR, path), join(root, path), { recursive: true });
      symlinkSync(join(PROJECT_DIR, "node_modules"), join(root, "node_modules"));
      // An edit with a type error, which only a type-check finds, and a bug, which the program meets at once.
      appendFileSync(
        join(root, "components/cluster.ts"),
        '\nconst notChecked: number = "a type error";\nexport const EDITED = notChecked;\n',
      );
      const program = readFileSync(join(root, "components/cluster.ts"), "utf8");
      const bug = program.replace(
        "  const opts = { parent };",
        '  const opts = { parent };\n  if (opts) throw new Error("a bug in the program");',
      );
      expect(bug).not.to.equal(program);
      writeFileSync(join(root, "components/cluster.ts"), bug);
    });

    it("runs as edited under pulumi preview, with no build step, and a bug shows where it came from", () => {
      // As Pulumi's Node.js runner loads the project (devtools/pulumiRunner.ts), then runs the program, whose
      // first act (reading the stack's own outputs) the mocks answer.
      const script = `
const { registerTypeScriptAsPulumiDoes } = require(${JSON.stringify(join(PROJECT_DIR, "devtools", "pulumiRunner.ts"))});
registerTypeScriptAsPulumiDoes(process.cwd());
const program = require("./index.ts");
const { EDITED } = require("./components/cluster.ts");
const swc = Object.keys(require.cache).some((f) => f.includes("/@swc/core/"));
const pulumi = require("@pulumi/pulumi");
const { planMocks } = require(${JSON.stringify(join(PROJECT_DIR, "cli", "plan", "mocks.ts"))});
const { loadStackConfig, toRuntimeConfig } = require(${JSON.stringify(join(PROJECT_DIR, "cli", "plan", "stackConfig.ts"))});
pulumi.runtime.setMocks(planMocks("us-east-1", ["us-east-1a"]), "cilium-cluster", "dev", true, "organization")
  .then(() => pulumi.runtime.setAllConfig(toRuntimeConfig(loadStackConfig("Pulumi.yaml", "Pulumi.dev.yaml")), []))
  .then(() => pulumi.runtime.runInPulumiStack(program))
  .then(
    () => console.log(JSON.stringify({ EDITED, swc, failed: false })),
    (err) => console.log(JSON.stringify({ EDITED, swc, failed: true, stack: err.stack })),
  );`;
      const run = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
        cwd: root,
        encoding: "utf8",
      });
      // The SDK also reports the program's rejection as unhandled, which ends Node with status 1, as it ends
      // Pulumi's runner with its own report: what the program returned was written first.
      const result = JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
      expect(result.EDITED, "the edit is what runs, not type-checked").to.equal("a type error");
      expect(result.swc, "transpiled by swc").to.equal(true);
      expect(result.failed).to.equal(true);
      expect(result.stack).to.match(
        /^Error: a bug in the program\n\s+at declareCluster \(.*\/project\/components\/cluster\.ts:\d+:\d+\)/,
      );
    });

    it("plans with the bug's stack trace on stderr", () => {
      const plan = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin"), join(root, "cli", "plan.ts")], {
        cwd: root,
        encoding: "utf8",
      });
      expect(plan.status, plan.stderr).to.equal(3);
      expect(plan.stderr, plan.stderr).to.match(
        /^plan failed: Error: a bug in the program\n\s+at declareCluster \(.*\/project\/components\/cluster\.ts:\d+:\d+\)/,
      );
    });
  });
});

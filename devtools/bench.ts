/**
 * `npm run bench`: the compiled plan's wall time and peak memory for the dev stack and a large stack, each
 * as a ratio to a floor measured in the same run (devtools/benchTarget.ts); the program under preview
 * settings as a ratio to the dev plan; what the SDK alone costs to register as many resources, as a ratio
 * to the dev plan; the warm cost per resource, fitted over the examples; and the
 * type-check time on its own. Every measured process is Node running bin/, with the options its entry point
 * starts Node with (cli/nodeArgs.ts; the floor with none). Runs are paired: each round runs every scenario once,
 * and a ratio is the median of the rounds' ratios, so load that comes and goes on a shared machine hits both
 * sides of a ratio alike. `--baseline DIR` also plans the dev stack with another checkout's build (DIR/bin,
 * e.g. an earlier commit's, with its own options) in every round, for the dev plan's ratio to it. `--quick`
 * does one round (CI: it must finish and print every figure; speed is never asserted).
 */
import { spawnSync } from "child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { cpus, loadavg, tmpdir } from "os";
import { join, resolve } from "path";
import { BUILD_DIR } from "./buildStamp";
import { NODE_ARGS } from "../cli/nodeArgs";
import { PROJECT_DIR } from "../cli/plan/examples";
import { build } from "./compile";
import { LARGE, TargetResult } from "./benchTarget";

type Scenario = "floor" | "registration" | "dev" | "large" | "preview" | "examples";
type Round = Record<Scenario, TargetResult> & { baseline?: TargetResult };

/** Another checkout's build (`--baseline`) and the Node options it starts with. */
interface Baseline {
  root: string;
  nodeArgs: readonly string[];
}

/**
 * The build in `root`, with its own Node options (its bin/cli/nodeArgs.js, or bin/nodeArgs.js in a checkout
 * from before cli/), none if it is older than them.
 */
async function baselineAt(root: string): Promise<Baseline> {
  const file = [join(root, BUILD_DIR, "cli", "nodeArgs.js"), join(root, BUILD_DIR, "nodeArgs.js")].find(existsSync);
  const nodeArgs = file ? ((await import(file)) as { NODE_ARGS: readonly string[] }).NODE_ARGS : [];
  return { root, nodeArgs };
}

/**
 * One scenario in a fresh Node process, started with `nodeArgs` as its entry point starts Node: a plan as
 * `npm run plan` does and the preview as Pulumi.yaml has the CLI do (cli/nodeArgs.ts); the floor with none, as
 * Node started before those options existed.
 */
function measure(scenario: Scenario, argument: string, nodeArgs: readonly string[], root = PROJECT_DIR): TargetResult {
  const target = join(root, BUILD_DIR, "devtools", "benchTarget.js");
  const child = spawnSync(process.execPath, [...nodeArgs, target, scenario, argument], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`${scenario} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop()!) as TargetResult;
}

function typeCheckSeconds(): number {
  const start = process.hrtime.bigint();
  const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "--noEmit", "-p", PROJECT_DIR], {
    encoding: "utf8",
  });
  if (tsc.status !== 0) throw new Error(`tsc --noEmit failed:\n${tsc.stdout}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** How a paired ratio varied from round to round: the least, the middle half, the most. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))].toFixed(2);
  return `  cpu per round: ${at(0)}, middle half ${at(0.25)}–${at(0.75)}, ${at(1)}`;
}

/** Least squares: y ≈ intercept + slope · x, and R². */
function fit(points: { x: number; y: number }[]): { slope: number; r2: number } {
  const mean = (f: (p: { x: number; y: number }) => number) => points.reduce((s, p) => s + f(p), 0) / points.length;
  const [mx, my] = [mean((p) => p.x), mean((p) => p.y)];
  const sxy = mean((p) => (p.x - mx) * (p.y - my));
  const sxx = mean((p) => (p.x - mx) ** 2);
  const syy = mean((p) => (p.y - my) ** 2);
  return { slope: sxy / sxx, r2: (sxy * sxy) / (sxx * syy) };
}

/** Every scenario once, each in a fresh process. */
function round(modulesFile: string, baseline: Baseline | undefined): Round {
  // The baseline's own target ignores the module list: it plans the dev stack.
  const baselinePlan = baseline ? measure("dev", modulesFile, baseline.nodeArgs, baseline.root) : undefined;
  const dev = measure("dev", modulesFile, NODE_ARGS);
  const preview = measure("preview", modulesFile, NODE_ARGS);
  const large = measure("large", modulesFile, NODE_ARGS);
  const examples = measure("examples", modulesFile, NODE_ARGS);
  // The floor loads every SDK module file the plans loaded: the SDK code a plan cannot avoid.
  writeFileSync(modulesFile, JSON.stringify([...new Set([...dev.sdkModules, ...large.sdkModules])]));
  const floor = measure("floor", modulesFile, []);
  const registration = measure("registration", String(dev.resources), NODE_ARGS);
  return { floor, registration, dev, large, preview, examples, ...(baselinePlan ? { baseline: baselinePlan } : {}) };
}

function report(rounds: Round[], typeCheck: number, loadBefore: number): void {
  const median_ = (s: Scenario, pick: (x: TargetResult) => number) => median(rounds.map((r) => pick(r[s])));
  // Paired: each round's ratio to its own floor, then the median of those.
  const ratio = (s: Scenario, pick: (x: TargetResult) => number) =>
    median(rounds.map((r) => pick(r[s]) / pick(r.floor))).toFixed(2);
  const cpu = cpus();
  console.log(
    `plan benchmark ${new Date().toISOString().slice(0, 16)}Z: node ${process.version}, ` +
      `${cpu.length} × ${cpu[0]?.model.trim()}, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `${rounds.length} round${rounds.length > 1 ? "s" : ""}, each scenario in a fresh process; large: ` +
      `${LARGE.zones} zones, ${LARGE.controlPlaneNodes} control-plane nodes, ${LARGE.nodeGroups} node groups\n`,
  );
  console.log(
    "scenario      resources  wall ms  × floor  cpu × floor  peak MiB  × floor  warm plan ms  warm ms/resource",
  );
  for (const s of ["floor", "registration", "dev", "large", "preview"] as const) {
    const resources = median_(s, (x) => x.resources);
    const warm = median_(s, (x) => x.warmPlanMs);
    const [warmMs, perResource] = warm === 0 ? ["", ""] : [warm.toFixed(0), (warm / resources).toFixed(2)];
    console.log(
      [
        s.padEnd(12),
        pad(resources, 9),
        pad(median_(s, (x) => x.wallMs).toFixed(0), 7),
        pad(
          ratio(s, (x) => x.wallMs),
          7,
        ),
        pad(
          ratio(s, (x) => x.cpuMs),
          11,
        ),
        pad((median_(s, (x) => x.maxRssKb) / 1024).toFixed(0), 8),
        pad(
          ratio(s, (x) => x.maxRssKb),
          7,
        ),
        pad(warmMs, 12),
        pad(perResource, 16),
      ]
        .join("  ")
        .trimEnd(),
    );
  }
  const registrationRatios = rounds.map((r) => r.registration.cpuMs / r.dev.cpuMs);
  console.log(
    `\nSDK registration floor (${rounds[0].registration.resources} minimal resources, the dev plan's count) × dev ` +
      `plan: ${median(registrationRatios).toFixed(2)} cpu, ` +
      `${median(rounds.map((r) => r.registration.wallMs / r.dev.wallMs)).toFixed(2)} wall`,
  );
  console.log(spread(registrationRatios));
  const previewRatios = rounds.map((r) => r.preview.cpuMs / r.dev.cpuMs);
  console.log(
    `preview (the program as pulumi preview runs it, dev stack) × dev plan: ` +
      `${median(previewRatios).toFixed(2)} cpu, ` +
      `${median(rounds.map((r) => r.preview.wallMs / r.dev.wallMs)).toFixed(2)} wall`,
  );
  console.log(spread(previewRatios));
  const baselines = rounds.flatMap((r) => (r.baseline ? [{ dev: r.dev, baseline: r.baseline }] : []));
  if (baselines.length > 0) {
    const baselineRatios = baselines.map((b) => b.dev.cpuMs / b.baseline.cpuMs);
    console.log(
      `dev plan × baseline's dev plan (${baselines[0].baseline.resources} resources there): ` +
        `${median(baselineRatios).toFixed(2)} cpu, ` +
        `${median(baselines.map((b) => b.dev.wallMs / b.baseline.wallMs)).toFixed(2)} wall ` +
        `(baseline cpu ${median(baselines.map((b) => b.baseline.cpuMs)).toFixed(0)} ms)`,
    );
    console.log(spread(baselineRatios));
  }
  const names = rounds[0].examples.examples!.map((e) => e.name);
  const points = names.map((name) => {
    const runs = rounds.map((r) => r.examples.examples!.find((e) => e.name === name)!);
    return { x: runs[0].resources, y: median(runs.map((e) => e.warmMs)) };
  });
  const { slope, r2 } = fit(points);
  const xs = points.map((p) => p.x);
  console.log(
    `warm plan time over the ${points.length} examples (${Math.min(...xs)} to ${Math.max(...xs)} resources): ` +
      `${slope.toFixed(2)} ms per resource, R² ${r2.toFixed(3)}`,
  );
  console.log(
    `type check (tsc --noEmit, in npm test and CI, never in a plan or preview, which ts-node runs transpile-only): ${typeCheck.toFixed(1)} s`,
  );
  // The preview runs index.ts through ts-node, as Pulumi's runner does; a plan runs the compiled program.
  const compiler = rounds.some((r) => r.dev.typescriptCompiler || r.large.typescriptCompiler);
  console.log(`TypeScript compiler registered in a measured plan: ${compiler ? "yes" : "no"}`);
  if (compiler) process.exitCode = 1;
}

async function main(argv: string[]): Promise<void> {
  const quick = argv.includes("--quick");
  const at = argv.indexOf("--baseline");
  if (at >= 0 && !argv[at + 1]) throw new Error("--baseline takes a checkout's directory, built (npm run build)");
  const baseline = at >= 0 ? await baselineAt(resolve(argv[at + 1])) : undefined;
  const count = quick ? 1 : Number(process.env.BENCH_RUNS ?? 7);
  await build(PROJECT_DIR);
  const loadBefore = loadavg()[0];
  const scratch = mkdtempSync(join(tmpdir(), "bench-"));
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < count; i++) rounds.push(round(join(scratch, "sdk-modules.json"), baseline));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  report(rounds, typeCheckSeconds(), loadBefore);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * `npm run bench`: the compiled plan's wall time and peak memory for the dev stack and a large stack, each
 * as a ratio to a floor measured in the same run (scripts/benchTarget.ts), its warm per-resource cost, and
 * the type-check time on its own. Every measured process is plain Node running bin/. Runs are paired: each
 * round runs every scenario once, and a ratio is the median of the rounds' ratios, so load that comes and
 * goes on a shared machine hits both sides of a ratio alike. `--quick` does one round (CI: it must finish
 * and print every figure; speed is never asserted).
 */
import { spawnSync } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { cpus, loadavg, tmpdir } from "os";
import { join } from "path";
import { BUILD_DIR } from "../buildStamp";
import { PROJECT_DIR } from "../plan/examples";
import { build } from "./compile";
import { LARGE, TargetResult } from "./benchTarget";

type Scenario = "floor" | "dev" | "large";
type Round = Record<Scenario, TargetResult>;

function measure(scenario: Scenario, modulesFile: string): TargetResult {
  const child = spawnSync(
    process.execPath,
    [join(PROJECT_DIR, BUILD_DIR, "scripts", "benchTarget.js"), scenario, modulesFile],
    { cwd: PROJECT_DIR, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
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

/** Every scenario once, each in a fresh process. */
function round(modulesFile: string): Round {
  const dev = measure("dev", modulesFile);
  const large = measure("large", modulesFile);
  // The floor loads every SDK module file the plans loaded: the SDK code a plan cannot avoid.
  writeFileSync(modulesFile, JSON.stringify([...new Set([...dev.sdkModules, ...large.sdkModules])]));
  return { floor: measure("floor", modulesFile), dev, large };
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
  console.log("scenario  resources  wall ms  × floor  cpu × floor  peak MiB  × floor  warm plan ms  warm ms/resource");
  for (const s of ["floor", "dev", "large"] as const) {
    const resources = median_(s, (x) => x.resources);
    const warm = median_(s, (x) => x.warmPlanMs);
    const [warmMs, perResource] = s === "floor" ? ["", ""] : [warm.toFixed(0), (warm / resources).toFixed(2)];
    console.log(
      [
        s.padEnd(8),
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
  const [dev, large] = (["dev", "large"] as const).map((s) => ({
    resources: median_(s, (x) => x.resources),
    warm: median_(s, (x) => x.warmPlanMs),
  }));
  console.log(
    `\nlarge/dev: ${(large.resources / dev.resources).toFixed(2)}× the resources, ` +
      `${(large.warm / dev.warm).toFixed(2)}× the warm plan time; each resource the large stack adds costs ` +
      `${((large.warm - dev.warm) / (large.resources - dev.resources)).toFixed(2)} ms warm`,
  );
  console.log(`type check (tsc --noEmit, in npm test and CI, never in a plan or preview): ${typeCheck.toFixed(1)} s`);
  const compiler = rounds.some((r) => Object.values(r).some((x) => x.typescriptCompiler));
  console.log(`TypeScript compiler registered in a measured process: ${compiler ? "yes" : "no"}`);
  if (compiler) process.exitCode = 1;
}

async function main(argv: string[]): Promise<void> {
  const quick = argv.includes("--quick");
  const count = quick ? 1 : Number(process.env.BENCH_RUNS ?? 7);
  await build(PROJECT_DIR);
  const loadBefore = loadavg()[0];
  const scratch = mkdtempSync(join(tmpdir(), "bench-"));
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < count; i++) rounds.push(round(join(scratch, "sdk-modules.json")));
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

/**
 * `npm run bench`: wall time and peak memory of `plan` for the dev stack and a large stack (6 zones,
 * 3 control-plane nodes, 10 node groups), medians of several runs, each as a ratio to the floor measured
 * in the same run: the same process loading the SDKs under mocks and declaring nothing.
 */
import { spawnSync } from "child_process";
import { join } from "path";
import { PROJECT_DIR } from "../plan/examples";

interface Sample {
  wallMs: number;
  planMs: number;
  warmPlanMs: number;
  maxRssKb: number;
  resources: number;
}

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCENARIOS = ["floor", "dev", "large"] as const;

function measure(scenario: string): Sample {
  const start = process.hrtime.bigint();
  const child = spawnSync(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", join(PROJECT_DIR, "scripts", "benchTarget.ts"), scenario],
    { cwd: PROJECT_DIR, encoding: "utf8" },
  );
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${scenario} failed: ${child.stderr}`);
  return { wallMs, ...JSON.parse(child.stdout.trim().split("\n").pop()!) };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function main(): void {
  const samples: Record<string, Sample[]> = { floor: [], dev: [], large: [] };
  // Interleaved, so a burst of load on a shared machine hits every scenario alike.
  for (let i = 0; i < RUNS; i++) for (const s of SCENARIOS) samples[s].push(measure(s));
  const row = (s: string) => {
    const m = (k: keyof Sample) => median(samples[s].map((x) => x[k]));
    return {
      wall: m("wallMs"),
      plan: m("planMs"),
      warm: m("warmPlanMs"),
      rss: m("maxRssKb") / 1024,
      resources: m("resources"),
    };
  };
  const floor = row("floor");
  console.log(`plan benchmark: median of ${RUNS} runs per scenario, each in a fresh process\n`);
  console.log("scenario  resources  wall ms  x floor  peak MiB  x floor  warm plan ms  ms/resource");
  for (const s of SCENARIOS) {
    const r = row(s);
    const warm = s === "floor" ? "" : r.warm.toFixed(0);
    const perResource = s === "floor" ? "" : (r.warm / r.resources).toFixed(2);
    console.log(
      `${s.padEnd(8)}  ${String(r.resources).padStart(9)}  ${r.wall.toFixed(0).padStart(7)}  ${(r.wall / floor.wall).toFixed(2).padStart(7)}` +
        `  ${r.rss.toFixed(0).padStart(8)}  ${(r.rss / floor.rss).toFixed(2).padStart(7)}  ${warm.padStart(12)}  ${perResource.padStart(11)}`,
    );
  }
  const dev = row("dev");
  const large = row("large");
  console.log(
    `\nlarge/dev: ${(large.resources / dev.resources).toFixed(2)}x the resources, ` +
      `${(large.warm / dev.warm).toFixed(2)}x the warm plan time (linear growth keeps the two close)`,
  );
}

main();

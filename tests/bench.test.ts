// `npm run bench -- --quick`: one round, as CI runs it. It must finish and print every figure; speed is
// measured by the benchmark itself, never asserted here.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { PROJECT_DIR } from "../plan/examples";

describe("npm run bench -- --quick", function () {
  this.timeout(300000);

  it("completes and prints every figure for the floor, the dev stack and the large stack", () => {
    const run = spawnSync(
      process.execPath,
      [require.resolve("ts-node/dist/bin"), "--transpile-only", "scripts/bench.ts", "--quick"],
      { cwd: PROJECT_DIR, encoding: "utf8" },
    );
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.split("\n");
    const row = (scenario: string) => lines.find((line) => line.startsWith(`${scenario} `)) ?? "";
    const number = String.raw`\d+(\.\d+)?`;
    // resources, wall ms, × floor, cpu × floor, peak MiB, × floor
    expect(row("floor")).to.match(new RegExp(`^floor\\s+1(\\s+${number}){5}$`));
    // ... and for plans, the warm plan's ms and ms per resource
    expect(row("dev")).to.match(new RegExp(`^dev(\\s+${number}){8}$`));
    expect(row("large")).to.match(new RegExp(`^large(\\s+${number}){8}$`));
    expect(run.stdout).to.match(/^plan benchmark .*node v\d+.*load average/m);
    expect(run.stdout).to.match(new RegExp(`^large/dev: ${number}× the resources, ${number}× the warm plan time`, "m"));
    expect(run.stdout).to.match(new RegExp(`^type check .*: ${number} s$`, "m"));
    expect(run.stdout).to.contain("TypeScript compiler registered in a measured process: no");
  });
});

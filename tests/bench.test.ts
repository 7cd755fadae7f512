// `npm run bench -- --quick`: one round, as CI runs it. It must finish and print every figure; speed is
// measured by the benchmark itself, never asserted here.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { examples, PROJECT_DIR } from "../cli/plan/examples";

describe("npm run bench -- --quick", function () {
  this.timeout(300000);

  // This checkout as its own baseline: the figure is printed, whatever it is.
  it("completes and prints every figure: floor, registration, dev, large, preview, the ratios and the fitted slope", () => {
    const run = spawnSync(
      process.execPath,
      [require.resolve("ts-node/dist/bin"), "--transpile-only", "devtools/bench.ts", "--quick", "--baseline", "."],
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
    // The SDK's registration floor and the preview are one cold run each: no warm figures.
    expect(row("registration")).to.match(new RegExp(`^registration(\\s+${number}){6}$`));
    expect(row("preview")).to.match(new RegExp(`^preview(\\s+${number}){6}$`));
    expect(run.stdout).to.match(/^plan benchmark .*node v\d+.*load average/m);
    expect(run.stdout).to.match(new RegExp(`^preview .* × dev plan: ${number} cpu, ${number} wall$`, "m"));
    expect(run.stdout).to.match(
      new RegExp(
        `^SDK registration floor \\(\\d+ minimal resources, .*\\) × dev plan: ${number} cpu, ${number} wall$`,
        "m",
      ),
    );
    expect(run.stdout).to.match(
      new RegExp(
        `^warm plan time over the ${examples().length} examples .*: -?${number} ms per resource, R² ${number}$`,
        "m",
      ),
    );
    expect(run.stdout).to.match(
      new RegExp(`^dev plan × baseline's dev plan \\(\\d+ resources there\\): ${number} cpu`, "m"),
    );
    // How the three paired ratios varied over the rounds.
    const spread = new RegExp(`^  cpu per round: ${number}, middle half ${number}–${number}, ${number}$`, "gm");
    expect(run.stdout.match(spread)).to.have.length(3);
    expect(run.stdout).to.match(new RegExp(`^type check .*: ${number} s$`, "m"));
    expect(run.stdout).to.contain("TypeScript compiler registered in a measured plan: no");
  });
});

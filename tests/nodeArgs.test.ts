// The options Node starts with (cli/nodeArgs.ts): the same for `pulumi preview` and `pulumi up` (Pulumi.yaml's
// nodeargs) as for `npm run plan`, and what they do: one background thread for V8 instead of four.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { readFileSync } from "fs";
import { join } from "path";
import { parse } from "yaml";
import { BUILD_DIR } from "../devtools/buildStamp";
import { cannotRun } from "./cannotRun";
import { NODE_ARGS } from "../cli/nodeArgs";
import { PROJECT_DIR } from "../cli/plan/examples";

const read = (file: string) => readFileSync(join(PROJECT_DIR, file), "utf8");

/**
 * The threads of a Node process started with `options` (Node starts V8's pool before any JavaScript runs),
 * with NODE_OPTIONS emptied, where a pool size would change the count.
 */
function threads(options: readonly string[]): number {
  const child = spawnSync(
    process.execPath,
    [...options, "-e", "console.log(require('fs').readdirSync('/proc/self/task').length)"],
    { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
  );
  expect(child.status, child.stderr).to.equal(0);
  return Number(child.stdout.trim());
}

describe("the options Node starts with", function () {
  this.timeout(30000);

  it("are Pulumi.yaml's nodeargs, which pulumi preview and pulumi up start Node with", () => {
    const project = parse(read("Pulumi.yaml")) as { runtime: { options: { nodeargs?: string } } };
    expect(project.runtime.options.nodeargs).to.equal(NODE_ARGS.join(" "));
  });

  it("are npm run plan's", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(scripts.plan).to.equal(["node", ...NODE_ARGS, `${BUILD_DIR}/cli/plan.js`].join(" "));
  });

  it("give V8 one background thread instead of Node's four", function () {
    if (process.platform !== "linux") cannotRun(this, "it counts a process's threads in /proc, which only Linux has");
    // Threads other than V8's pool (the main thread, Node's own) are in both counts.
    expect(threads(NODE_ARGS) - threads([])).to.equal(1 - 4);
  });
});

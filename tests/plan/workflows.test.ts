// The pull-request workflow: its structure, and that every command it runs exists here.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { parse } from "yaml";
import { PROJECT_DIR } from "../../plan/examples";

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  steps: Step[];
}

const workflow = parse(readFileSync(join(PROJECT_DIR, ".github/workflows/pull-request.yml"), "utf8")) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};
const scripts = Object.keys(JSON.parse(readFileSync(join(PROJECT_DIR, "package.json"), "utf8")).scripts);

describe("pull-request workflow", () => {
  it("runs on pull requests with a test-and-plan job and a credentialed preview job", () => {
    expect(workflow.on).to.have.property("pull_request");
    expect(Object.keys(workflow.jobs)).to.deep.equal(["test-and-plan", "preview"]);
  });

  it("pins every action to a major version", () => {
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps.filter((s) => s.uses)) expect(step.uses).to.match(/^[\w-]+\/[\w-]+@v\d+$/);
    }
  });

  it("tests, then plans every example against the base branch and posts the markdown", () => {
    const runs = workflow.jobs["test-and-plan"].steps.map((s) => s.run ?? "").join("\n");
    expect(runs).to.match(/^npm ci$/m);
    expect(runs).to.match(/^npm test$/m);
    expect(runs).to.contain("--out");
    expect(runs).to.contain("--against");
    expect(runs).to.contain("--format markdown");
    expect(workflow.jobs["test-and-plan"].steps.at(-1)!.uses).to.equal("actions/github-script@v7");
    for (const [, name] of runs.matchAll(/npm run (?:--silent )?([\w-]+)/g)) expect(scripts, name).to.include(name);
  });

  it("previews with pulumi/actions only when credentials are configured", () => {
    const preview = workflow.jobs.preview;
    expect(preview.if).to.contain("vars.AWS_ROLE_ARN != ''");
    const pulumi = preview.steps.find((s) => s.uses?.startsWith("pulumi/actions@"));
    expect(pulumi?.with).to.include({ command: "preview" });
  });
});

// One control-plane member at a time: the wait after each control-plane group, run as pulumi up runs it
// (against the AWS fake (tests/standins/aws.ts) reached through AWS_ENDPOINT_URL, and a local /readyz), as a preview runs it, its
// decisions and the order it puts the groups in.
import { expect } from "chai";
import { createServer, Server } from "http";
import type { AddressInfo } from "net";
import * as pulumi from "@pulumi/pulumi";
import {
  controlPlaneMemberReplaced,
  MemberTiming,
  refreshOutcome,
  waitForMember,
} from "../../components/controlPlane/refreshWait";
import type { Outcome } from "../../components/poll";
import { stackAws } from "../../components/stackAws";
import type { Plan, PlannedResource } from "../../cli/plan/run";
import { configWith, installers, ofType, planWith } from "../planHelpers";
import { runPlan } from "../../cli/plan/run";
import { waitFor } from "../waitFor";
import { groupInPlace, mockRuntime } from "./deployWaitFixtures";
import { AMBIENT_KEY, AwsOptions, Group, sdkEnvironment, startAws } from "../standins/aws";

const REGION = "us-east-1";
const STACK_KEY = "AKIASTACKPROFILE";
const STACK_AWS = { "aws:region": REGION, "aws:profile": "stack" };
const FAST: MemberTiming = {
  memberReplacementSeconds: 5,
  refreshPollSeconds: 0.05,
  apiSilentLimitSeconds: 1,
  apiPollSeconds: 0.05,
  apiAttemptSeconds: 0.3,
};

const valueOf = <T>(output: pulumi.Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));

/** A /readyz answering each request with the next status (the last repeats). */
async function readyz(statuses: number[]): Promise<{ url: string; server: Server; hits: number[] }> {
  const hits: number[] = [];
  const server = createServer((_req, res) => {
    hits.push(Date.now());
    res.writeHead(statuses[Math.min(hits.length - 1, statuses.length - 1)]).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`, server, hits };
}

const target = (url: string) => ({ url, caCertPem: "", access: [], remedies: "REMEDY" });

/** The stack's account: groups whose newest refresh has these statuses at each call, the rest as given. */
async function account(refreshes: Record<string, Group["refreshes"]>, options: AwsOptions = {}) {
  const aws = await startAws({ region: REGION, autoScalingKey: STACK_KEY, ...options });
  for (const [name, steps] of Object.entries(refreshes)) aws.groups.set(name, { hooks: [], refreshes: steps });
  return aws;
}

/**
 * What the Pulumi CLI reports of a failed output: the SDK hands its error to the process's unhandled
 * rejection handlers, which the CLI turns into the update's error. Collected here instead, until one comes.
 */
async function reportedFailure(declare: () => unknown): Promise<unknown> {
  const listeners = process.listeners("unhandledRejection");
  process.removeAllListeners("unhandledRejection");
  const reported: unknown[] = [];
  process.on("unhandledRejection", (reason) => reported.push(reason));
  try {
    declare();
    await waitFor("a failure reported", () => reported.length > 0, 10_000);
    return reported[0];
  } finally {
    process.removeAllListeners("unhandledRejection");
    for (const l of listeners) process.on("unhandledRejection", l);
  }
}

describe("control-plane member wait", () => {
  it("reads the newest instance refresh (Auto Scaling's statuses)", () => {
    const at = (day: number) => `2026-01-0${day}T00:00:00Z`;
    const table: [{ Status: string; StatusReason?: string; StartTime: string | Date }[], Outcome][] = [
      [[], "done"],
      [[{ Status: "Successful", StartTime: at(1) }], "done"],
      [
        [
          { Status: "InProgress", StartTime: at(2) },
          { Status: "Successful", StartTime: at(1) },
        ],
        "wait",
      ],
      [[{ Status: "Pending", StartTime: at(1) }], "wait"],
      [
        [
          { Status: "Successful", StartTime: at(2) },
          { Status: "Failed", StartTime: at(1) },
        ],
        "done",
      ],
      // As the SDK gives them: Dates, newest by time (Friday the 2nd after Thursday the 1st).
      [
        [
          { Status: "Failed", StartTime: new Date(at(1)) },
          { Status: "Successful", StartTime: new Date(at(2)) },
        ],
        "done",
      ],
      [
        [{ Status: "Failed", StatusReason: "instances did not become healthy", StartTime: at(2) }],
        { failed: "Failed: instances did not become healthy" },
      ],
      [[{ Status: "Cancelled", StartTime: at(1) }], { failed: "Cancelled: no reason given" }],
      [[{ Status: "RollbackSuccessful", StartTime: at(1) }], { failed: "RollbackSuccessful: no reason given" }],
    ];
    for (const [refreshes, outcome] of table)
      expect(refreshOutcome(refreshes), JSON.stringify(refreshes)).to.deep.equal(outcome);
  });

  describe("during pulumi up", () => {
    let restore: (() => void) | undefined;
    const closing: (() => unknown)[] = [];
    // What the update's display shows while a wait lasts: without an engine, the SDK prints it.
    const INFO = "info: [runtime] ";
    const consoleLog = console.log;
    let shown: string[] = [];
    beforeEach(() => {
      shown = [];
      console.log = (...args: unknown[]) => {
        const text = args.map(String).join(" ");
        if (text.startsWith(INFO)) shown.push(text.slice(INFO.length));
        else consoleLog(...args);
      };
    });
    afterEach(async () => {
      console.log = consoleLog;
      restore?.();
      restore = undefined;
      for (const close of closing.splice(0)) await close();
    });

    it("ends once the group's refresh has succeeded and then the API answers, calling AWS as the stack's profile", async () => {
      await mockRuntime(false);
      const aws = await account({ g: ["InProgress", "InProgress", "Successful"] });
      const api = await readyz([503, 200]);
      closing.push(aws.close, () => api.server.close());
      restore = sdkEnvironment(aws, { stack: STACK_KEY });

      const replaced = controlPlaneMemberReplaced(groupInPlace("g"), target(api.url), stackAws(STACK_AWS), FAST);
      expect(await valueOf(replaced)).to.equal("g");
      expect(aws.calls.map((c) => [c.action, c.params.AutoScalingGroupName, c.caller, c.region])).to.deep.equal(
        Array(3).fill(["autoscaling:DescribeInstanceRefreshes", "g", STACK_KEY, REGION]),
      );
      expect(api.hits).to.have.length(2);
      expect(api.hits[0]).to.be.at.least(aws.calls[2].answered);
      expect(shown).to.have.length(2);
      expect(shown[0]).to.equal("waiting for the instance refresh of g to succeed (at most 5s)");
      // What is left of the member's deadline.
      expect(shown[1]).to.match(new RegExp(`^waiting for ${api.url} to be ready \\(last: HTTP 503; at most [45]s\\)$`));

      // The SDK's default chain finds the machine's ambient identity and region: the fake, as AWS would,
      // takes it for someone else, and the wait says with what it called.
      const ambient = await waitForMember("g", undefined, stackAws({ "aws:region": REGION }), FAST).catch(
        (e: Error) => e.message,
      );
      expect(aws.calls[3]).to.include({ caller: AMBIENT_KEY, refused: "InvalidClientTokenId" });
      expect(ambient).to.contain(
        "the instance refresh of g: autoscaling:DescribeInstanceRefreshes failed with the stack's AWS config " +
          "(region us-east-1, the default credential chain): InvalidClientTokenId",
      );
    });

    it("assumes the stack's aws:assumeRoles in turn, each with the previous one's credentials", async () => {
      await mockRuntime(false);
      const first = { accessKeyId: "ASIAFIRSTROLE", secretAccessKey: "s1" };
      const second = { accessKeyId: "ASIASECONDROLE", secretAccessKey: "s2" };
      const aws = await account(
        { g: ["Successful"] },
        {
          autoScalingKey: second.accessKeyId,
          roles: {
            "arn:aws:iam::111111111111:role/hop": { trusts: STACK_KEY, issues: first },
            "arn:aws:iam::222222222222:role/deploy": { trusts: first.accessKeyId, issues: second },
          },
        },
      );
      closing.push(aws.close);
      restore = sdkEnvironment(aws, { stack: STACK_KEY });
      const roles = [
        { roleArn: "arn:aws:iam::111111111111:role/hop", duration: "1h", externalId: "ext" },
        { roleArn: "arn:aws:iam::222222222222:role/deploy", sessionName: "deployer" },
      ];
      const config = stackAws({ ...STACK_AWS, "aws:assumeRoles": JSON.stringify(roles) });
      expect(await valueOf(controlPlaneMemberReplaced(groupInPlace("g"), undefined, config, FAST))).to.equal("g");
      expect(aws.calls.map((c) => [c.action, c.caller, c.params.RoleArn])).to.deep.equal([
        ["sts:AssumeRole", STACK_KEY, roles[0].roleArn],
        ["sts:AssumeRole", first.accessKeyId, roles[1].roleArn],
        ["autoscaling:DescribeInstanceRefreshes", second.accessKeyId, undefined],
      ]);
      expect(aws.calls[0].params).to.include({ DurationSeconds: "3600", ExternalId: "ext" });
      expect(aws.calls[1].params).to.include({ RoleSessionName: "deployer" });
    });

    it("stops pulumi up on a failed refresh, on the group, saying what comes next", async () => {
      await mockRuntime(false);
      const aws = await account({
        g: ["InProgress", { Status: "Failed", StatusReason: "instances did not become healthy" }],
      });
      closing.push(aws.close);
      restore = sdkEnvironment(aws, { stack: STACK_KEY });
      const g = groupInPlace("g");
      const failure = await reportedFailure(() => controlPlaneMemberReplaced(g, undefined, stackAws(STACK_AWS), FAST));
      expect(pulumi.ResourceError.isInstance(failure)).to.equal(true);
      expect((failure as pulumi.ResourceError).resource).to.equal(g);
      expect((failure as Error).message).to.match(
        /^the instance refresh of g: Failed: instances did not become healthy\. The next control-plane group waits until a refresh of this one succeeds: aws autoscaling describe-instance-refreshes --auto-scaling-group-name g/,
      );
    });

    it("stops at the deadline, naming what it waited for: the refresh, or the API after it", async () => {
      await mockRuntime(false);
      const aws = await account({ slow: ["InProgress"], g: ["Successful"] });
      const api = await readyz([503]);
      closing.push(aws.close, () => api.server.close());
      restore = sdkEnvironment(aws, { stack: STACK_KEY });
      const timing = { ...FAST, memberReplacementSeconds: 1 };
      const refresh = await reportedFailure(() =>
        controlPlaneMemberReplaced(groupInPlace("slow"), undefined, stackAws(STACK_AWS), timing),
      );
      expect((refresh as Error).message).to.match(/^the instance refresh of slow: not done after 1s\. /);
      const started = Date.now();
      const ready = await reportedFailure(() =>
        controlPlaneMemberReplaced(groupInPlace("g"), target(api.url), stackAws(STACK_AWS), timing),
      );
      expect(Date.now() - started).to.be.lessThan(3000);
      expect((ready as Error).message).to.match(
        /^the API after g: http:\/\/127\.0\.0\.1:\d+\/readyz answered but did not become ready in 1s \(last: HTTP 503\)/,
      );
    });
  });

  it("does nothing in a preview: no AWS call, no request to the API", async () => {
    await mockRuntime(true);
    const aws = await account({ g: ["InProgress"] });
    const api = await readyz([503]);
    const restore = sdkEnvironment(aws, { stack: STACK_KEY });
    try {
      const replaced = controlPlaneMemberReplaced(groupInPlace("g"), target(api.url), stackAws(STACK_AWS), FAST);
      expect(await valueOf(replaced)).to.equal("g");
      await new Promise((r) => setTimeout(r, 200));
      expect(aws.calls).to.deep.equal([]);
      expect(api.hits).to.deep.equal([]);
    } finally {
      restore();
      await aws.close();
      api.server.close();
    }
  });

  it("orders the control-plane groups: each after the previous group's wait, as pulumi up runs the program", async () => {
    const groups = ["us-east-1a", "us-east-1b", "us-east-1c"].map((z) => `control-plane-${z}.dev.k8s.local`);
    // Every group's refresh succeeded, each answer taking a while: a wait that did not hold the next group
    // back would overlap the previous one's.
    const aws = await account(Object.fromEntries(groups.map((g) => [g, ["Successful"]])), { delayMs: 300 });
    const restore = sdkEnvironment(aws, { stack: STACK_KEY });
    try {
      // pulumi up reaches only the AWS API there: no /readyz to wait for.
      const config = configWith({
        "controlPlane.count": "3",
        "addons.applyFrom": "controlPlane",
        "api.loadBalancer": "internal",
        "aws:profile": "stack",
      });
      // The first control-plane node has stored the cluster CA's certificate, which pulumi up reads.
      const caParameter = /^\s*CLUSTER_CA_PARAMETER='([^']+)'$/m.exec(
        installers(await runPlan(config, "test"))[0][1],
      )![1];
      aws.putParameter(caParameter, "-----BEGIN CERTIFICATE-----", "String");
      const up = await runPlan(config, "test", false);
      const refreshes = aws.calls.filter((c) => c.action === "autoscaling:DescribeInstanceRefreshes");
      expect(refreshes.map((c) => c.params.AutoScalingGroupName)).to.deep.equal(groups);
      for (let i = 1; i < groups.length; i++)
        expect(refreshes[i].received, groups[i]).to.be.at.least(refreshes[i - 1].answered);
      expect(new Set(aws.calls.map((c) => `${c.caller} ${c.region}`))).to.deep.equal(
        new Set([`${STACK_KEY} ${REGION}`]),
      );
      // The stack's outputs follow the last group's wait, which nothing else does.
      expect(up.outputs.autoScalingGroups).to.include({ "control-plane-us-east-1c": groups[2] });
    } finally {
      restore();
      await aws.close();
    }
  });

  it("declares each control-plane group after the previous one's group and hooks, and workers apart", async () => {
    const ha: Plan = await planWith({ "controlPlane.count": "3" });
    const asg = (group: string): PlannedResource =>
      ofType(ha, "aws:autoscaling/group:Group").find((g) => g.name === `${group}-group`)!;
    const hooks = (group: string) =>
      ofType(ha, "aws:autoscaling/lifecycleHook:LifecycleHook").filter((h) => h.name.startsWith(`${group}-`));
    const dependsOn = (r: PlannedResource, other: PlannedResource) => (r.dependencies ?? []).includes(other.urn);
    const [a, b, c] = ["a", "b", "c"].map((z) => `control-plane-us-east-1${z}`);
    for (const [later, earlier] of [
      [b, a],
      [c, b],
    ]) {
      expect(dependsOn(asg(later), asg(earlier)), `${later} after ${earlier}`).to.equal(true);
      for (const h of hooks(earlier)) expect(dependsOn(asg(later), h), `${later} after ${h.name}`).to.equal(true);
    }
    expect(dependsOn(asg(a), asg(b))).to.equal(false);
    // Workers do not wait for the control plane's roll.
    for (const g of [a, b, c]) expect(dependsOn(asg("nodes"), asg(g))).to.equal(false);
  });

  it("on an upgrade to the next minor, rolls the node groups only after the last control-plane group's wait", async () => {
    const edits = { "controlPlane.count": "3", kubernetesVersion: "1.35.4" };
    // The stack last applied 1.34.12 (its output kubernetesVersion, read back by the program).
    const upgrade = await runPlan(configWith(edits), "test", true, { kubernetesVersion: "1.34.12" });
    const patch = await runPlan(configWith(edits), "test", true, { kubernetesVersion: "1.35.3" });
    const same = await runPlan(configWith(edits), "test", true, { kubernetesVersion: "1.35.4" });
    const asg = (plan: Plan, group: string): PlannedResource =>
      ofType(plan, "aws:autoscaling/group:Group").find((g) => g.name === `${group}-group`)!;
    const hooks = (plan: Plan, group: string) =>
      ofType(plan, "aws:autoscaling/lifecycleHook:LifecycleHook").filter((h) => h.name.startsWith(`${group}-`));
    const waitsFor = (plan: Plan, group: string) =>
      [asg(plan, group), ...hooks(plan, group)].every((r) => (asg(plan, "nodes").dependencies ?? []).includes(r.urn));
    const [last, first] = ["control-plane-us-east-1c", "control-plane-us-east-1a"];
    expect(waitsFor(upgrade, last), "1.34.12 → 1.35.4").to.equal(true);
    // A kubelet of the same minor runs with the old API servers: the node groups roll alongside.
    expect(waitsFor(patch, last), "1.35.3 → 1.35.4").to.equal(false);
    expect(waitsFor(same, last), "no upgrade").to.equal(false);
    for (const plan of [upgrade, patch, same]) expect(waitsFor(plan, first)).to.equal(false);
  });
});

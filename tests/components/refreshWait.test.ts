// One control-plane member at a time: the wait between control-plane groups, its decisions and its order.
import { expect } from "chai";
import { createServer, Server } from "net";
import { apiReadiness, refreshOutcome, waitUntil, Outcome } from "../../components/controlPlane/refreshWait";
import type { Plan, PlannedResource } from "../../plan/run";
import { ofType, planWith } from "../planHelpers";

describe("control-plane refresh wait", () => {
  it("reads the newest instance refresh (Auto Scaling's statuses)", () => {
    const at = (day: number) => `2026-01-0${day}T00:00:00Z`;
    const table: [{ Status: string; StatusReason?: string; StartTime: string }[], Outcome][] = [
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

  it("waits until done, and fails clearly on a failed refresh or at the deadline", async () => {
    let clock = 0;
    const now = () => clock;
    const sleep = async (ms: number) => {
      clock += ms;
    };
    const answers: Outcome[] = ["wait", "wait", "done"];
    await waitUntil("refresh of g", async () => answers.shift()!, 60000, 10000, now, sleep);
    expect(clock).to.equal(20000);
    clock = 0;
    let error = "";
    await waitUntil("refresh of g", async () => "wait", 30000, 10000, now, sleep).catch((e) => (error = e.message));
    expect(error).to.equal("refresh of g: not done after 30s");
    await waitUntil("refresh of g", async () => ({ failed: "Failed: x" }), 30000, 10000, now, sleep).catch(
      (e) => (error = e.message),
    );
    expect(error).to.equal("refresh of g: Failed: x");
  });

  it("fails at the API once nothing has answered for the silent limit, and keeps waiting on a refusal", async () => {
    // A listener that accepts and never answers: what a load balancer this machine does not reach looks like.
    const sockets: import("net").Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as import("net").AddressInfo).port;
    try {
      const look = apiReadiness(`https://127.0.0.1:${port}/readyz`, "", 300, 100);
      expect(await look()).to.equal("wait");
      await new Promise((r) => setTimeout(r, 300));
      const outcome = await look();
      expect(outcome).to.have.property("failed").that.contains("nothing answered for 0s");
      // A refused connection is an answer (the API is down, not unreachable): the wait goes on.
      const closed = apiReadiness("https://127.0.0.1:1/readyz", "", 300, 100);
      await new Promise((r) => setTimeout(r, 400));
      expect(await closed()).to.equal("wait");
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it("orders the control-plane groups: each after the previous group's wait", async () => {
    const ha: Plan = await planWith({ "controlPlane.count": "3" });
    const waits = ha.resources.filter((r) => r.name.endsWith("-healthy"));
    expect(waits.map((w) => w.name)).to.deep.equal([
      "control-plane-us-east-1a-healthy",
      "control-plane-us-east-1b-healthy",
      "control-plane-us-east-1c-healthy",
    ]);
    // A group's Auto Scaling group depends on the previous group's wait (its launch ordering).
    const asg = (group: string): PlannedResource =>
      ofType(ha, "aws:autoscaling/group:Group").find((g) => g.name === `${group}-group`)!;
    const dependsOn = (r: PlannedResource, other: PlannedResource) => (r.dependencies ?? []).includes(other.urn);
    expect(dependsOn(asg("control-plane-us-east-1b"), waits[0]), "1b after 1a's wait").to.equal(true);
    expect(dependsOn(asg("control-plane-us-east-1c"), waits[1]), "1c after 1b's wait").to.equal(true);
    expect(dependsOn(asg("control-plane-us-east-1a"), waits[1])).to.equal(false);
    // Each wait follows its own group's Auto Scaling group (and so its refresh).
    for (const [i, zone] of ["us-east-1a", "us-east-1b", "us-east-1c"].entries())
      expect(dependsOn(waits[i], asg(`control-plane-${zone}`)), zone).to.equal(true);
    // Workers do not wait for the control plane's roll.
    for (const w of waits) expect(dependsOn(asg("nodes"), w)).to.equal(false);
  });
});

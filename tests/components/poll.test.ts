// The one poll loop of the program's waits, on a clock of its own.
import { expect } from "chai";
import { Outcome, waitUntil } from "../../components/poll";

describe("poll loop", () => {
  let clock = 0;
  const now = () => clock;
  const sleep = async (ms: number) => {
    clock += ms;
  };
  const failure = (promise: Promise<void>) =>
    promise.then(
      () => "",
      (e: Error) => e.message,
    );
  beforeEach(() => (clock = 0));

  it("asks again after each interval until done", async () => {
    const answers: Outcome[] = ["wait", "wait", "done"];
    await waitUntil("refresh of g", async () => answers.shift()!, { timeoutMs: 60000, intervalMs: 10000, now, sleep });
    expect([clock, answers]).to.deep.equal([20000, []]);
  });

  it("ends at the first failure, and at the deadline, with an error naming the wait", async () => {
    const timing = { timeoutMs: 30000, intervalMs: 10000, now, sleep };
    let asked = 0;
    const waiting = async (): Promise<Outcome> => (asked++, "wait");
    expect(await failure(waitUntil("refresh of g", waiting, timing))).to.equal("refresh of g: not done after 30s");
    expect([asked, clock]).to.deep.equal([4, 30000]);
    expect(await failure(waitUntil("refresh of g", async () => ({ failed: "Failed: x" }), timing))).to.equal(
      "refresh of g: Failed: x",
    );
    expect(await failure(waitUntil("api", waiting, { ...timing, timedOut: () => "never ready" }))).to.equal(
      "api: never ready",
    );
  });
});

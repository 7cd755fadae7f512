/**
 * The one poll loop of the program's waits (an instance refresh, the API's /readyz): ask, and until the
 * answer is done or a failure, ask again after an interval, at most until a deadline.
 */

/** One answer: done, ask again, or a failure that ends the wait. */
export type Outcome = "done" | "wait" | { failed: string };

export interface PollTiming {
  timeoutMs: number;
  intervalMs: number;
  /** The error's text at the deadline, after `what: `; by default how long it waited. */
  timedOut?: () => string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Asks `check` until it is done; a failure or the deadline throws an error that starts with `what`. */
export async function waitUntil(what: string, check: () => Promise<Outcome>, timing: PollTiming): Promise<void> {
  const { timeoutMs, intervalMs, now = Date.now } = timing;
  const sleep = timing.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + timeoutMs;
  for (;;) {
    const outcome = await check();
    if (outcome === "done") return;
    if (outcome !== "wait") throw new Error(`${what}: ${outcome.failed}`);
    if (now() >= deadline)
      throw new Error(`${what}: ${timing.timedOut?.() ?? `not done after ${Math.round(timeoutMs / 1000)}s`}`);
    await sleep(intervalMs);
  }
}

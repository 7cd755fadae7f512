/** A test's wait for a condition, through the program's own poll loop (components/poll.ts). */
import { waitUntil } from "../components/poll";

/** Checks `check` every `intervalMs` until it holds; throws, naming `what`, after `timeoutMs`. */
export const waitFor = (what: string, check: () => boolean, timeoutMs = 120_000, intervalMs = 250): Promise<void> =>
  waitUntil(`waiting for ${what}`, async () => (check() ? "done" : "wait"), { timeoutMs, intervalMs });

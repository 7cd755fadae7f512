/** The cluster check's bound on each request it makes (components/timeouts.ts): a silent server is an answer. */
import { TIMEOUTS } from "../../components/timeouts";

export const requestMs = TIMEOUTS.validate.requestSeconds * 1000;

/** `call`, or an error naming `what` when it has not settled within the request timeout. */
export function within<T>(what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${requestMs / 1000}s`)), requestMs);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

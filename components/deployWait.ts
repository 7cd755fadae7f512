/**
 * A wait that `pulumi up` does and a preview does not: `value`, once `wait` has run on it. Whatever takes the
 * returned output (an input, `dependsOn`, a stack output) waits for it; a failure stops the update with the
 * wait's message, on `resource`, where what `wait` reports shows meanwhile.
 *
 * An `apply` guarded by `pulumi.runtime.isDryRun()`, as pulumi-eks waits for its cluster's endpoint, runs in
 * the program, with the stack's config, on every `pulumi up` (a wait already satisfied costs one request).
 * What the SDK (3.276) offers otherwise holds up less well:
 * - resource hooks (the `hooks` option): an after-hook's error is only a warning (`ResourceHookBinding`), a
 *   before-hook runs only when its own resource changes, and the mock runtime advertises hooks but cannot
 *   register one (its MockMonitor has no `registerResourceHook`), so the offline plan could not run;
 * - a dynamic provider: it runs in the engine's provider host, from code serialized at every preview, and
 *   sees the stack's config only through inputs kept in the state.
 */
import * as pulumi from "@pulumi/pulumi";

export function waitDuringUpdate<T>(
  value: pulumi.Input<T>,
  resource: pulumi.Resource,
  wait: (value: pulumi.Unwrap<T>, report: (message: string) => void) => Promise<void>,
): pulumi.Output<pulumi.Unwrap<T>> {
  return pulumi.output(value).apply(async (known) => {
    if (pulumi.runtime.isDryRun()) return known;
    try {
      // Ephemeral: the update's display shows it while the wait lasts.
      await wait(known, (message) => void pulumi.log.info(message, resource, undefined, true));
    } catch (error) {
      // Shown on the resource, without a stack trace: the message says what was waited for and what to do.
      throw new pulumi.ResourceError(error instanceof Error ? error.message : String(error), resource, true);
    }
    return known;
  });
}

/**
 * `value`, once each of `waits` (outputs of `waitDuringUpdate`) is done: whatever takes it waits for them
 * during `pulumi up`. In a preview, where they wait for nothing, it is `value` itself, known when `value` is
 * (the waits' own inputs may not be, e.g. resources still to be created), so a Kubernetes provider
 * configured with it still previews its objects' diffs.
 */
export function afterWaits<T>(value: pulumi.Input<T>, waits: pulumi.Input<unknown>[]): pulumi.Output<pulumi.Unwrap<T>> {
  if (pulumi.runtime.isDryRun()) return pulumi.output(value);
  return pulumi.all([pulumi.output(value), ...waits]).apply(([known]) => known as pulumi.Unwrap<T>);
}

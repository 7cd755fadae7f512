/**
 * Imported first by the entry points (index.ts for `pulumi preview`/`up`, scripts/plan.ts for the plan),
 * before the SDKs load:
 * - Node's compile cache (`module.enableCompileCache`, Node 22.1 and later; older Node simply goes without):
 *   the SDKs' JavaScript is compiled once, then read back, in `NODE_COMPILE_CACHE` when set, else in Node's
 *   default, `<os.tmpdir()>/node-compile-cache`.
 * - What the Pulumi SDK loads as it loads and this program never uses (unusedSdkModules.ts: TypeScript's
 *   compiler, the Automation API, the provider server, ...) loads on first use (loadOnFirstUse.ts): together
 *   about a seventh of a dev plan's CPU even with the compile cache, the compiler most of it. A plan also
 *   leaves gRPC unloaded, which previews use (planRuntimeSettings.ts).
 * - No stack trace per promise: the Pulumi SDK captures one for every promise it creates, only to report
 *   leaked ones, which costs a preview as much as the program's own work. Errors keep their messages, which
 *   name the config path or resource.
 * - Stack traces formatted by V8, as the plan does: Pulumi's Node.js runner maps every trace through source
 *   maps (source-map-support), and the SDK still captures a whole trace for each resource, for its source
 *   position. The compiled program has no source maps (scripts/compile.ts), so its positions come out the
 *   same, at about a tenth of a preview's CPU less.
 * `CILIUM_CLUSTER_STACK_TRACES=1` leaves both as the runner has them, for debugging.
 */
import * as nodeModule from "module";
import { loadOnFirstUse } from "./loadOnFirstUse";
import { unusedSdkModules } from "./unusedSdkModules";

/** Node 22's compile cache, where this Node has it. */
(nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache?.();

for (const { filename, previewUses, ...shape } of unusedSdkModules()) if (!previewUses) loadOnFirstUse(filename, shape);

if (process.env.CILIUM_CLUSTER_STACK_TRACES !== "1") {
  Error.stackTraceLimit = 0;
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
}

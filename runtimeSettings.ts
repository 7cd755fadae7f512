/**
 * Imported first by the entry points (index.ts for `pulumi preview`/`up`, scripts/plan.ts for the plan),
 * before the SDKs load:
 * - Node's compile cache (`module.enableCompileCache`, Node 22.1 and later; older Node simply goes without):
 *   the SDKs' JavaScript is compiled once, then read back, in `NODE_COMPILE_CACHE` when set, else in Node's
 *   default, `<os.tmpdir()>/node-compile-cache`.
 * - What the Pulumi SDK loads as it loads and this program never uses (unusedSdkModules.ts: TypeScript's
 *   compiler, the Automation API, the provider server) loads on first use (loadOnFirstUse.ts): the
 *   compiler alone cost about a third of a plan's CPU.
 * - No stack trace per promise: the Pulumi SDK captures one for every promise it creates, only to report
 *   leaked ones, which costs a preview as much as the program's own work. Errors keep their messages, which
 *   name the config path or resource. `CILIUM_CLUSTER_STACK_TRACES=1` turns the traces back on, for debugging.
 */
import * as nodeModule from "module";
import { loadOnFirstUse } from "./loadOnFirstUse";
import { unusedSdkModules } from "./unusedSdkModules";

/** Node 22's compile cache, where this Node has it. */
(nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache?.();

for (const { filename, esModule } of unusedSdkModules()) loadOnFirstUse(filename, esModule);

if (process.env.CILIUM_CLUSTER_STACK_TRACES !== "1") Error.stackTraceLimit = 0;

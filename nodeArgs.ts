/**
 * The options Node.js starts with for the program and the plan: Pulumi.yaml's `runtime.options.nodeargs`,
 * which `pulumi preview` and `pulumi up` start Node with, and `npm run plan`'s command (package.json);
 * tests/nodeArgs.test.ts keeps the two the same as this list.
 *
 * `--v8-pool-size=0`: Node sizes V8's pool of background threads (concurrent compilation and garbage
 * collection) from the cores available, one fewer than them and at least one (GetActualThreadPoolSize in
 * Node's src/node_platform.cc), instead of its fixed four. On a two-core machine, as CI runners and this
 * project's machines are, four threads contend with the main thread, and in a preview with the Pulumi
 * engine and the AWS provider too: one thread takes about a tenth off a plan's CPU and its wall time alike
 * (docs/development.md). On a machine with more than five cores, Node runs more of them than four.
 */
export const NODE_ARGS: readonly string[] = ["--v8-pool-size=0"];

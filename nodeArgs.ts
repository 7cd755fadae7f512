/**
 * The options Node.js starts with for the program and the plan: Pulumi.yaml's `runtime.options.nodeargs`,
 * which `pulumi preview` and `pulumi up` start Node with (the Node.js language host puts them before its
 * runner), and `npm run plan`'s command (package.json); tests/nodeArgs.test.ts keeps the two the same as
 * this list.
 *
 * `--v8-pool-size=1`: one background thread for V8's concurrent compilation and garbage collection, instead
 * of Node's fixed four. On a two-core machine, as this project's machines and private repositories' GitHub
 * runners are, four threads contend with the main thread: one takes about a tenth off a plan's CPU and wall
 * time alike (docs/development.md). A plan's heap stays small (under 200 MiB for the large stack), so one
 * helper is enough on any machine, and in a preview it leaves the other cores to the Pulumi engine and the
 * AWS provider.
 */
export const NODE_ARGS: readonly string[] = ["--v8-pool-size=1"];

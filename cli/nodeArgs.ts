/**
 * The options Node.js starts with for the program and the plan: Pulumi.yaml's `runtime.options.nodeargs`,
 * which `pulumi preview` and `pulumi up` start Node with (the Node.js language host puts them before its
 * runner), and `npm run plan`'s command (package.json); tests/nodeArgs.test.ts keeps the two the same as
 * this list.
 *
 * `--v8-pool-size=1`: one background thread for V8's concurrent compilation and garbage collection, instead
 * of Node's fixed four. On a two-core machine, as this project's machines and private repositories' GitHub
 * runners are, four threads contend with the main thread: with one, a plan takes about a tenth less CPU and
 * wall time alike (measured on two cores, docs/development.md). The program's memory stays small (a peak
 * of 160 MiB resident for the large stack's plan), so one helper keeps up with its garbage, and in a preview
 * the other cores are left to the Pulumi engine and the AWS provider.
 */
export const NODE_ARGS: readonly string[] = ["--v8-pool-size=1"];

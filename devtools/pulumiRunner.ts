/**
 * What Pulumi's Node.js runner does before it loads a project whose Pulumi.yaml sets `typescript: true`
 * (`@pulumi/pulumi/cmd/run/run.js`, `run()`, in a CommonJS project): it reads tsconfig.json's compiler
 * options, then registers ts-node with them over its own defaults, naming the project's tsconfig.json and
 * leaving `transpileOnly` to it unless `PULUMI_NODEJS_TRANSPILE_ONLY` is set. The runner itself cannot run
 * without a Pulumi engine to connect to (its `index.js` parses the engine's arguments as it loads), so the
 * benchmark's preview and the build test register ts-node as it does, with its own helpers.
 */
import { createRequire } from "module";
import { join } from "path";

// The SDK's tsutils declares no types (its functions are internal to the runner): loaded untyped.
const load = createRequire(__filename);

export function registerTypeScriptAsPulumiDoes(projectDir: string): void {
  // The SDK's own reader of tsconfig.json and chooser of the typescript and ts-node it loads.
  const tsutils = load("@pulumi/pulumi/tsutils") as {
    loadTypeScriptCompilerOptions(path: string): Record<string, unknown>;
    typeScriptRequireStrings(): { tsnodeRequire: string; typescriptRequire: string };
  };
  const tsConfigPath = join(projectDir, "tsconfig.json");
  const compilerOptions = tsutils.loadTypeScriptCompilerOptions(tsConfigPath);
  const transpileOnlyEnv = process.env.PULUMI_NODEJS_TRANSPILE_ONLY;
  const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
  const tsNode = load(tsnodeRequire) as { register(options: object): unknown };
  tsNode.register({
    compiler: typescriptRequire,
    transpileOnly: transpileOnlyEnv ? transpileOnlyEnv === "true" : compilerOptions.noCheck,
    project: tsConfigPath,
    skipProject: false,
    compilerOptions: {
      target: "ES2020",
      module: "nodenext",
      moduleResolution: "nodenext",
      sourceMap: "true",
      ...compilerOptions,
    },
  });
}

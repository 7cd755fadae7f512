/**
 * Compiles the program, the offline plan and the benchmark's target to JavaScript in bin/ (`npm run build`
 * runs it through devtools/build.js), so that neither `pulumi preview` nor the plan loads TypeScript. Each
 * file is transpiled on its own with tsconfig.json's options (`isolatedModules` makes that exact; `npm test`
 * type-checks), other files are copied beside them, and a stamp records every input. Does nothing when bin/
 * already matches the sources.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "fs";
import { dirname, join } from "path";
import * as ts from "typescript";
import { BUILD_DIR, compiledSources, STAMP_FILE, staleBuild, stampOf } from "./buildStamp";

function compilerOptions(root: string): ts.CompilerOptions {
  const { config, error } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
  if (errors.length > 0)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, "\n")).join("\n"));
  return { ...options, noEmit: false, sourceMap: false, inlineSourceMap: false, declaration: false };
}

/** Rebuilds `root/bin` from scratch unless it matches the sources; returns whether it built. */
export async function build(root: string): Promise<boolean> {
  if (!staleBuild(root)) return false;
  // Stamped as read before compiling: a source edited during the build makes the result stale, not wrong.
  const stamp = stampOf(root);
  const out = join(root, BUILD_DIR);
  rmSync(out, { recursive: true, force: true });
  const options = compilerOptions(root);
  for (const file of compiledSources(root)) {
    const target = join(out, file.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    if (!file.endsWith(".ts")) {
      copyFileSync(join(root, file), target);
      continue;
    }
    const source = ts.sys.readFile(join(root, file))!;
    const { outputText, diagnostics } = ts.transpileModule(source, {
      compilerOptions: options,
      fileName: file,
      reportDiagnostics: true,
    });
    if (diagnostics?.length) {
      throw new Error(
        `${file}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n")}`,
      );
    }
    writeFileSync(target, outputText);
  }
  // Written last: an interrupted build has no stamp, so the program refuses to run it.
  writeFileSync(join(out, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  return true;
}

if (require.main === module) {
  build(join(__dirname, "..")).then(
    (built) => {
      if (built) process.stderr.write(`built ${BUILD_DIR}/\n`);
    },
    (err: unknown) => {
      process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

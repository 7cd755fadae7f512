/**
 * A stand-in program as JavaScript, transpiled once per test process with TypeScript's own `transpileModule`
 * (it and the test files it imports, relative imports only): a node calls its kubeadm a dozen times, and
 * through ts-node each call would load TypeScript's compiler again (about 0.8 s of CPU a call, against 0.15 s).
 * Its packages resolve from the project's node_modules (NODE_PATH, set by the caller).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join, relative, resolve } from "path";
import ts from "typescript";

/** The project's root: the compiled files keep their place under it. */
const root = resolve(__dirname, "..", "..");

const compiled = new Map<string, string>();
let outDir: string | undefined;

/** The JavaScript of SOURCE (a .ts file), and of each file it imports relatively, in a directory of this process. */
export function compiledStandIn(source: string): string {
  const done = compiled.get(source);
  if (done) return done;
  outDir ??= mkdtempSync(join(tmpdir(), "standins-"));
  const pending = [source];
  const seen = new Set<string>();
  while (pending.length) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    // What this follows: `from "./x"` imports of .ts files under the project. Anything else fails here, not
    // later as a module the stand-in cannot find.
    if (relative(root, file).startsWith("..")) throw new Error(`${file}: outside the project`);
    if (/\brequire\(|^import\s+["']|from\s+["'][^"']+\.js["']/m.test(text))
      throw new Error(`${file}: a require(), side-effect or .js import, which this does not follow`);
    for (const [, spec] of text.matchAll(/from "(\.{1,2}\/[^"]+)"/g))
      pending.push(`${resolve(dirname(file), spec)}.ts`);
    const { outputText } = ts.transpileModule(text, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    });
    const out = join(outDir, relative(root, file).replace(/\.ts$/, ".js"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  const entry = join(outDir, relative(root, source).replace(/\.ts$/, ".js"));
  compiled.set(source, entry);
  return entry;
}

/**
 * The compiled program in bin/ and the sources it was built from. `npm run build` writes a stamp with a
 * hash of every input; the compiled entry point compares it with the sources before it runs, so a build
 * older than its sources cannot be previewed, applied or planned by mistake.
 */
import { createHash } from "crypto";
import { existsSync, readdirSync, readFileSync, Stats, statSync } from "fs";
import { join } from "path";
import { byCodePoint } from "../components/codePointOrder";

export const BUILD_DIR = "bin";
export const STAMP_FILE = "build-stamp.json";

/**
 * What the build compiles into bin/: the program, the offline plan, the benchmark's target, the admin
 * kubeconfig command and the cluster check.
 */
export const COMPILED_ROOTS = [
  "index.ts",
  "components",
  "config",
  "catalogs",
  "cli",
  "devtools/buildStamp.ts",
  "devtools/benchTarget.ts",
  "devtools/pulumiRunner.ts",
];
/** Inputs that shape the output without being compiled themselves. */
export const BUILD_INPUTS = ["tsconfig.json", "devtools/compile.ts"];

export interface Stamp {
  /** Project-relative path → sha256 of the file, for every compiled root and build input. */
  files: Record<string, string>;
  /** Project-relative path → what `stat` said of the file when it was hashed (`size:mtimeMs:ctimeMs:ino`). */
  seen: Record<string, string>;
  /** When the files were looked at (ms since the epoch). */
  at: number;
}

/** Every file under `path` (a file itself, or a directory walked), with what `stat` says of it. */
function walk(root: string, path: string): [string, Stats][] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  const stats = statSync(full);
  if (!stats.isDirectory()) return [[path, stats]];
  return readdirSync(full).flatMap((name) => walk(root, `${path}/${name}`));
}

/** Project-relative paths of every compiled file (TypeScript and the assets beside it), sorted. */
export function compiledSources(root: string): string[] {
  return COMPILED_ROOTS.flatMap((path) => walk(root, path))
    .map(([path]) => path)
    .sort();
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * The stamp of the sources as they are now. A file whose stat is the one `known` recorded keeps the hash
 * recorded with it, unread: as git's index does, a file is taken as unchanged while its size, modification
 * and change times and inode are, which spares every plan and preview hashing the sources. The change time
 * is the kernel's (no copy or archive restores it), and a file changed no earlier than `known` was taken is
 * read again, since a change in the same clock tick could leave its stat as it was (git's "racy clean").
 */
export function stampOf(root: string, known?: Stamp): Stamp {
  const at = Date.now();
  const entries = [...COMPILED_ROOTS, ...BUILD_INPUTS].flatMap((path) => walk(root, path));
  entries.sort(([a], [b]) => byCodePoint(a, b));
  const stamp: Stamp = { files: {}, seen: {}, at };
  for (const [path, stats] of entries) {
    const seen = `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
    const settled = known !== undefined && Math.max(stats.mtimeMs, stats.ctimeMs) < known.at;
    const recorded = settled && known.seen?.[path] === seen ? known.files[path] : undefined;
    stamp.files[path] = recorded ?? sha256(join(root, path));
    stamp.seen[path] = seen;
  }
  return stamp;
}

/** Files that differ between a build's stamp and the sources, as `changed: x`, `added: y`, `removed: z`. */
export function differences(built: Stamp, now: Stamp): string[] {
  const out: string[] = [];
  for (const [file, hash] of Object.entries(now.files)) {
    if (!(file in built.files)) out.push(`added: ${file}`);
    else if (built.files[file] !== hash) out.push(`changed: ${file}`);
  }
  for (const file of Object.keys(built.files)) if (!(file in now.files)) out.push(`removed: ${file}`);
  return out;
}

/**
 * Why the build in `root/bin` must not run, or undefined when it matches the sources. The message says
 * what differs and how to rebuild.
 */
export function staleBuild(root: string): string | undefined {
  const stampFile = join(root, BUILD_DIR, STAMP_FILE);
  const fix = "run `npm run build` (npm ci and npm run plan build it for you)";
  if (!existsSync(stampFile)) return `The compiled program in ${BUILD_DIR}/ has no build stamp: ${fix}.`;
  const built = JSON.parse(readFileSync(stampFile, "utf8")) as Stamp;
  const diff = differences(built, stampOf(root, built));
  if (diff.length === 0) return undefined;
  const shown = diff.slice(0, 5).join(", ") + (diff.length > 5 ? `, and ${diff.length - 5} more` : "");
  return `The compiled program in ${BUILD_DIR}/ was built from other sources (${shown}): ${fix}.`;
}

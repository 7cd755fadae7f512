/**
 * A unified diff of two texts (`diff -u`'s hunks: `@@ -a,n +b,m @@`, then context, removed and added lines),
 * for the user data a reviewer reads in a plan diff: a changed line with the lines around it says where in
 * the bootstrap it is. Longest common subsequence over lines; user data is a few hundred lines.
 */

type Op = { kind: " " | "-" | "+"; line: string };

function lineOps(a: readonly string[], b: readonly string[]): Op[] {
  const width = b.length + 1;
  // common[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j]
          ? common[(i + 1) * width + j + 1] + 1
          : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i] });
      [i, j] = [i + 1, j + 1];
    } else if (i < a.length && (j === b.length || common[(i + 1) * width + j] >= common[i * width + j + 1])) {
      // Removed lines before added ones, as diff -u prints a changed line.
      ops.push({ kind: "-", line: a[i++] });
    } else {
      ops.push({ kind: "+", line: b[j++] });
    }
  }
  return ops;
}

/** The hunks of a unified diff with `context` unchanged lines around each change; none for equal texts. */
export function unifiedDiff(before: string, after: string, context = 3): string[] {
  const ops = lineOps(before.split("\n"), after.split("\n"));
  const changed = ops.flatMap((op, k) => (op.kind === " " ? [] : [k]));
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    // A hunk runs from `context` lines before a change to `context` after the last change near it.
    const start = Math.max(0, changed[k] - context);
    let last = changed[k];
    while (k + 1 < changed.length && changed[k + 1] - last <= 2 * context) last = changed[++k];
    const end = Math.min(ops.length, last + context + 1);
    k++;
    const lineAt = (kind: "-" | "+") => ops.slice(0, start).filter((op) => op.kind !== kind).length + 1;
    const hunk = ops.slice(start, end);
    const count = (kind: "-" | "+") => hunk.filter((op) => op.kind !== kind).length;
    out.push(`@@ -${lineAt("+")},${count("+")} +${lineAt("-")},${count("-")} @@`);
    for (const op of hunk) out.push(`${op.kind} ${op.line}`);
  }
  return out;
}

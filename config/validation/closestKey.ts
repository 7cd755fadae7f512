/** Edit distance between two strings (Levenshtein), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[y.length];
}

/** Up to `count` known values nearest to a mistyped one, nearest first (ties in the list's order). */
export function closestValues(value: string, known: Iterable<string>, count = 3): string[] {
  return [...known]
    .map((candidate) => [candidate, distance(value, candidate)] as const)
    .sort((a, b) => a[1] - b[1])
    .slice(0, count)
    .map(([candidate]) => candidate);
}

/** The known key closest to a mistyped one, when it is close enough to be what the user meant. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const tolerance = Math.max(2, Math.floor(key.length / 3));
  return bestDistance <= tolerance ? best : undefined;
}

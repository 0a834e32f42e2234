// Small statistics helpers shared by the measurements and the report.

/** The p-th percentile (nearest rank) of ascending-sorted values; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

/** Median of each numeric field over repeated runs of the same shape. */
export function medianOf<T extends object>(runs: readonly T[]): T {
  const first = runs[0] as Record<string, unknown>;
  const out: Record<string, unknown> = { ...first };
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === 'number') out[key] = median(runs.map((r) => (r as Record<string, unknown>)[key] as number));
  }
  return out as T;
}

// What a page reads the same for every supervisor of a scope and that changes seldom (the filter forms'
// choices, a list's total once past its cap), kept a short while in the process: every page would
// otherwise read it again, a statement and a round trip each, while the team pages through a list.

/** Values kept `ttlMs` per key, at most `max` keys (the oldest dropped first); a failed read keeps nothing. */
export class ShortMemo<T> {
  private readonly kept = new Map<string, { at: number; value: T }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 500,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The value kept for `key`, or `read()`'s, kept when `keep` says so. */
  async get(key: string, read: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    const hit = this.kept.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = await read();
    if (this.ttlMs > 0 && keep(value)) {
      this.kept.delete(key);
      this.kept.set(key, { at: this.now(), value });
      if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
    }
    return value;
  }
}

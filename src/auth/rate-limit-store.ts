import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Pool } from '../db/pool';
import { isDatabaseUnavailable } from '../http/errors';
import { throttled, type Logger } from '../http/failure-log';

// A fixed window per key: the first hits after the window has passed start a new one. One statement
// adds every key's hits since the last flush ($1 keys, $2 hits, $3 their windows) and reads back the
// totals, with those of the keys this process only watches ($4), which other processes may have moved.
const FLUSH = `
  WITH sent AS (SELECT * FROM unnest($1::text[], $2::int[], $3::int[]) AS s(key, delta, window_ms)),
  added AS (
    INSERT INTO access.rate_limits AS r (key, hits, reset_at)
    SELECT key, greatest(delta, 0), now() + window_ms * interval '1 millisecond' FROM sent
    ON CONFLICT (key) DO UPDATE SET
      hits     = greatest(CASE WHEN r.reset_at <= now() THEN 0 ELSE r.hits END
                          + (SELECT sent.delta FROM sent WHERE sent.key = excluded.key), 0),
      reset_at = CASE WHEN r.reset_at <= now() THEN excluded.reset_at ELSE r.reset_at END
    RETURNING key, hits, reset_at)
  SELECT key, hits, reset_at FROM added
  UNION ALL
  SELECT key, hits, reset_at FROM access.rate_limits WHERE key = ANY($4::text[]) AND reset_at > now()`;

const READ = 'SELECT hits, reset_at FROM access.rate_limits WHERE key = $1 AND reset_at > now()';

/** How often rows of windows long past are deleted. */
const SWEEP_MS = 60000;

/** What this process knows of one key. */
interface Count {
  /** The total of every process at the last flush (or first read). */
  shared: number;
  /** This process's hits since then. */
  pending: number;
  resetAt: number;
  windowMs: number;
}

/**
 * The rate-limit counts of every process and instance, in PostgreSQL (access.rate_limits, on the
 * primary), without a statement per request: this process counts in memory and, every `flushMs`, adds
 * its hits to the shared rows and reads back the totals, all keys in one statement. A key this process
 * has not seen in its window is read once, on its first hit, so a new process starts from the total.
 *
 * What it allows: a process learns of the others' hits at its next flush, so within one flush interval
 * each process may admit up to what it last knew was left. In all, a key may get up to
 * (processes - 1) x (the requests one process admits for it in `flushMs`) beyond its limit, and never more
 * than processes x the limit in one window (docs/SCALING.md, "Shared rate limits").
 *
 * With the database away, the counts go on in memory alone and the failure is logged once a second.
 */
export class SharedCounts {
  private readonly counts = new Map<string, Count>();
  private readonly reads = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly pool: Pool,
    private readonly flushMs: number,
    private readonly log: Logger = console.error,
  ) {}

  /** Adds `delta` hits to `key` (after reading its total, the first time); returns the total as known now. */
  async hit(key: string, windowMs: number, delta: number): Promise<ClientRateLimitInfo> {
    if (!this.counts.has(key) || this.counts.get(key)!.resetAt <= Date.now()) await this.read(key, windowMs);
    const count = this.counts.get(key)!;
    count.pending += delta;
    this.start();
    return { totalHits: Math.max(count.shared + count.pending, 0), resetTime: new Date(count.resetAt) };
  }

  peek(key: string): ClientRateLimitInfo | undefined {
    const count = this.counts.get(key);
    if (!count || count.resetAt <= Date.now()) return undefined;
    return { totalHits: Math.max(count.shared + count.pending, 0), resetTime: new Date(count.resetAt) };
  }

  async reset(key: string): Promise<void> {
    this.counts.delete(key);
    await this.away(this.pool.query('DELETE FROM access.rate_limits WHERE key = $1', [key]), undefined);
  }

  /** Sends the hits counted since the last flush and reads back every known key's total. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    this.timer = this.sweeper = undefined;
  }

  private read(key: string, windowMs: number): Promise<void> {
    let reading = this.reads.get(key);
    if (!reading) {
      const found = this.pool.query(READ, [key]).then(({ rows }) => rows[0] as { hits: number; reset_at: Date } | undefined);
      reading = this.away(found, undefined)
        .then((row) => {
          this.counts.set(key, {
            shared: row?.hits ?? 0,
            pending: 0,
            resetAt: row ? row.reset_at.getTime() : Date.now() + windowMs,
            windowMs,
          });
        })
        .finally(() => this.reads.delete(key));
      this.reads.set(key, reading);
    }
    return reading;
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch((error: Error) => this.failed(error)), this.flushMs).unref();
    this.sweeper = setInterval(() => {
      this.away(this.pool.query('DELETE FROM access.rate_limits WHERE reset_at < now()'), undefined).catch((error: Error) =>
        this.failed(error),
      );
    }, SWEEP_MS).unref();
  }

  private async send(): Promise<void> {
    // The process is stopping (its pool has ended): nothing more to send, and no timer to keep.
    if (this.pool.ended) return this.stop();
    const now = Date.now();
    const sent = new Map<string, number>();
    const watched: string[] = [];
    for (const [key, count] of this.counts) {
      if (count.resetAt <= now && count.pending <= 0)
        this.counts.delete(key); // its window is over
      else if (count.pending !== 0) sent.set(key, count.pending);
      else watched.push(key);
    }
    if (!this.counts.size) return this.stop();
    const keys = [...sent.keys()];
    const windows = keys.map((key) => this.counts.get(key)!.windowMs);
    const result = await this.away(this.pool.query(FLUSH, [keys, [...sent.values()], windows, watched]), undefined);
    if (!result) return; // the database is away: the hits stay pending, and go with the next flush
    const seen = new Set<string>();
    for (const row of result.rows as Array<{ key: string; hits: number; reset_at: Date }>) {
      const count = this.counts.get(row.key);
      if (!count) continue;
      seen.add(row.key);
      count.shared = row.hits;
      count.resetAt = row.reset_at.getTime();
      count.pending -= sent.get(row.key) ?? 0;
    }
    // A watched key whose row is gone: its window has ended everywhere.
    for (const key of watched) if (!seen.has(key)) this.counts.delete(key);
  }

  /** A flush that failed otherwise than by the database being away: the pool has ended (the process is stopping), or a bug. */
  private failed(error: Error): void {
    if (this.pool.ended) return this.stop();
    throttled(this.log).write(`rate limits: ${error.message}`, `rate limits could not be flushed: ${error.stack ?? error.message}`);
  }

  /** `fallback` when the database is away (logged, throttled); any other error is thrown, for the bug it is. */
  private async away<T>(work: Promise<T>, fallback: T): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const reason = `rate limits counted in this process alone, the database is away: ${(error as Error).message}`;
      throttled(this.log).write(reason, reason);
      return fallback;
    }
  }
}

/** One limit's view of the shared counts, as express-rate-limit asks for it; `prefix` keeps limits apart. */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60000;

  constructor(
    private readonly counts: SharedCounts,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.counts.peek(this.prefix + key);
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.counts.hit(this.prefix + key, this.windowMs, 1);
  }

  async decrement(key: string): Promise<void> {
    await this.counts.hit(this.prefix + key, this.windowMs, -1);
  }

  resetKey(key: string): Promise<void> {
    return this.counts.reset(this.prefix + key);
  }
}

/** The store of one limit: PostgreSQL (shared by all processes), or undefined for express-rate-limit's memory store (this process alone). */
export type RateLimitStores = (prefix: string) => Store | undefined;

export function rateLimitStores(pool: Pool, kind: 'postgres' | 'memory', log?: Logger, flushMs = 200): RateLimitStores {
  if (kind === 'memory') return () => undefined;
  const counts = new SharedCounts(pool, flushMs, log);
  return (prefix) => new PostgresRateLimitStore(counts, prefix);
}

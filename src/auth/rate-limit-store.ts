import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Pool } from '../db/pool';
import { isDatabaseUnavailable } from '../http/errors';
import { throttled, type Logger } from '../http/failure-log';

// A fixed window per key: the first hit after the window has passed starts a new one.
const INCREMENT = `
  INSERT INTO access.rate_limits AS r (key, hits, reset_at)
  VALUES ($1, 1, now() + $2 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    hits     = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.hits + 1 END,
    reset_at = CASE WHEN r.reset_at <= now() THEN excluded.reset_at ELSE r.reset_at END
  RETURNING hits, reset_at`;

/** How often rows of windows long past are deleted. */
const SWEEP_MS = 60000;

/**
 * An express-rate-limit store in PostgreSQL (access.rate_limits, on the primary): every process and
 * every instance of the service counts in the same rows, one statement per counted request. The
 * `prefix` keeps the limits apart (per-token, auth failures, sign-in failures).
 *
 * With the database away, a request passes uncounted (as express-rate-limit's passOnStoreError would
 * let it) and the failure is logged here, one line per second at most: the library's own report is the
 * whole error with its stack, for every request.
 */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60000;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    readonly prefix: string,
    private readonly log: Logger = console.error,
  ) {}

  /** `fallback` when the database is away (logged, throttled); any other error is thrown, for the bug it is. */
  private async orWhenAway<T>(work: Promise<T>, fallback: T): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const reason = `rate limit ${this.prefix.replace(/:$/, '')} not counted, the database is away: ${(error as Error).message}`;
      throttled(this.log).write(reason, reason);
      return fallback;
    }
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.sweeper = setInterval(() => {
      this.pool.query('DELETE FROM access.rate_limits WHERE key LIKE $1 AND reset_at < now()', [`${this.prefix}%`]).catch(() => undefined);
    }, SWEEP_MS).unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const found = this.pool
      .query('SELECT hits, reset_at FROM access.rate_limits WHERE key = $1 AND reset_at > now()', [this.prefix + key])
      .then(({ rows }) => rows[0] as { hits: number; reset_at: Date } | undefined);
    const row = await this.orWhenAway(found, undefined);
    return row ? { totalHits: row.hits, resetTime: row.reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const counted = this.pool.query(INCREMENT, [this.prefix + key, this.windowMs]).then(({ rows }) => rows[0]);
    // Uncounted: the request is this window's first, as far as anyone can tell.
    const row = await this.orWhenAway(counted, { hits: 1, reset_at: new Date(Date.now() + this.windowMs) });
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    const sql = 'UPDATE access.rate_limits SET hits = greatest(hits - 1, 0) WHERE key = $1 AND reset_at > now()';
    await this.orWhenAway(this.pool.query(sql, [this.prefix + key]), undefined);
  }

  async resetKey(key: string): Promise<void> {
    await this.orWhenAway(this.pool.query('DELETE FROM access.rate_limits WHERE key = $1', [this.prefix + key]), undefined);
  }

  shutdown(): void {
    clearInterval(this.sweeper);
  }
}

/** The store of one limit: PostgreSQL (shared by all processes), or undefined for express-rate-limit's memory store (this process alone). */
export type RateLimitStores = (prefix: string) => Store | undefined;

export function rateLimitStores(pool: Pool, kind: 'postgres' | 'memory', log?: Logger): RateLimitStores {
  return (prefix) => (kind === 'postgres' ? new PostgresRateLimitStore(pool, prefix, log) : undefined);
}

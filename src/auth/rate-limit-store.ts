import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Pool } from '../db/pool';

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
 */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60000;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.sweeper = setInterval(() => {
      this.pool.query('DELETE FROM access.rate_limits WHERE key LIKE $1 AND reset_at < now()', [`${this.prefix}%`]).catch(() => undefined);
    }, SWEEP_MS).unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const { rows } = await this.pool.query('SELECT hits, reset_at FROM access.rate_limits WHERE key = $1 AND reset_at > now()', [
      this.prefix + key,
    ]);
    return rows[0] ? { totalHits: rows[0].hits, resetTime: rows[0].reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const { rows } = await this.pool.query(INCREMENT, [this.prefix + key, this.windowMs]);
    return { totalHits: rows[0].hits, resetTime: rows[0].reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.pool.query('UPDATE access.rate_limits SET hits = greatest(hits - 1, 0) WHERE key = $1 AND reset_at > now()', [
      this.prefix + key,
    ]);
  }

  async resetKey(key: string): Promise<void> {
    await this.pool.query('DELETE FROM access.rate_limits WHERE key = $1', [this.prefix + key]);
  }

  shutdown(): void {
    clearInterval(this.sweeper);
  }
}

/** The store of one limit: PostgreSQL (shared by all processes), or undefined for express-rate-limit's memory store (this process alone). */
export type RateLimitStores = (prefix: string) => Store | undefined;

export function rateLimitStores(pool: Pool, kind: 'postgres' | 'memory'): RateLimitStores {
  return (prefix) => (kind === 'postgres' ? new PostgresRateLimitStore(pool, prefix) : undefined);
}

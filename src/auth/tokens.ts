import crypto from 'node:crypto';
import type pg from 'pg';

// API tokens: 256 random bits, shown once at creation; the database keeps only their SHA-256.

const PREFIX = 'rev2_';
const TOKEN_SHAPE = /^rev2_[A-Za-z0-9_-]{43}$/;

export interface TokenAccess {
  id: string;
  name: string;
  /** The one 3PL company the token may see, or null for all. */
  companyId: string | null;
}

export function sha256(token: string): Buffer {
  return crypto.createHash('sha256').update(token, 'utf8').digest();
}

export function newToken(): string {
  return PREFIX + crypto.randomBytes(32).toString('base64url');
}

type Queryable = Pick<pg.ClientBase, 'query'>;

export async function createToken(
  db: Queryable,
  { name, company, expiresInDays }: { name: string; company?: string; expiresInDays?: number },
): Promise<{ id: string; token: string }> {
  let companyId: string | null = null;
  if (company !== undefined) {
    const { rows } = await db.query('SELECT id FROM companies WHERE name = $1', [company]);
    if (!rows.length) throw new Error(`There is no 3PL company named "${company}"`);
    companyId = rows[0].id;
  }
  const token = newToken();
  const { rows } = await db.query(
    `INSERT INTO access.api_tokens (name, token_sha256, company_id, expires_at)
     VALUES ($1, $2, $3, CASE WHEN $4::int IS NULL THEN NULL ELSE now() + make_interval(days => $4::int) END)
     RETURNING id`,
    [name, sha256(token), companyId, expiresInDays ?? null],
  );
  return { id: rows[0].id, token };
}

/** Revokes the live token with this name (or id); returns how many were revoked. */
export async function revokeToken(db: Queryable, nameOrId: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE access.api_tokens SET revoked_at = now()
      WHERE revoked_at IS NULL AND (name = $1 OR id::text = $1)`,
    [nameOrId],
  );
  return rowCount ?? 0;
}

export async function listTokens(db: Queryable) {
  const { rows } = await db.query(
    `SELECT t.id, t.name, c.name AS company, t.created_at, t.last_used_at, t.expires_at, t.revoked_at
       FROM access.api_tokens t LEFT JOIN companies c ON c.id = t.company_id ORDER BY t.id`,
  );
  return rows;
}

/** The live tokens: not revoked, not expired. */
const LIVE_TOKENS = `
  SELECT id, name, company_id, encode(token_sha256, 'hex') AS hash, extract(epoch FROM expires_at) * 1000 AS expires
    FROM access.api_tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`;

/** How long a token looked up and not found is refused without another lookup. */
export const NOT_FOUND_MS = 5000;
/** Most lookups of unknown tokens per second and process. */
export const LOOKUPS_PER_SECOND = 20;
/** The not-found list is emptied past this many entries (a flood of random tokens). */
const MAX_NOT_FOUND = 10000;

function cached(row: { id: string; name: string; company_id: string | null; expires: number | null }): CachedToken {
  return {
    access: Object.freeze({ id: row.id, name: row.name, companyId: row.company_id }),
    expiresAt: row.expires === null ? null : Number(row.expires),
  };
}

interface CachedToken {
  /** What a request with this token may see: one frozen object, handed to every such request. */
  access: Readonly<TokenAccess>;
  expiresAt: number | null;
}

/**
 * The live tokens, held in memory and reloaded every few seconds, so that a request's token is
 * decided without taking a pooled connection, and a bad token costs the database nothing.
 * Last-use times are collected here and written in one statement per reload.
 */
export class TokenCache {
  private tokens = new Map<string, CachedToken>();
  /**
   * Live tokens as presented, found since the last reload: the same token on the next request is
   * then one lookup, without hashing it again. Emptied with every reload, so a revoked token is
   * refused from the next reload on, as before; only tokens that were found are held.
   */
  private presented = new Map<string, CachedToken>();
  private used = new Map<string, number>();
  /**
   * Tokens of the right shape looked up and not found, by hash, until when they stay refused without
   * asking again: a client retrying a bad token costs the database one statement per NOT_FOUND_MS.
   */
  private notFound = new Map<string, number>();
  /** Lookups started in the current second, bounded by LOOKUPS_PER_SECOND. */
  private lookups = { second: 0, count: 0 };
  private timer?: NodeJS.Timeout;
  private loaded = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly refreshMs: number,
    private readonly log: (message: string) => void,
  ) {}

  /** Loads once (the service still starts if the database is away) and keeps reloading. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** True once the tokens have been read at least once. */
  get ready(): boolean {
    return this.loaded;
  }

  check(token: string): TokenAccess | undefined {
    let found = this.presented.get(token);
    if (!found) {
      if (!TOKEN_SHAPE.test(token)) return undefined;
      found = this.tokens.get(sha256(token).toString('hex'));
      if (!found) return undefined;
      this.presented.set(token, found);
    }
    const now = Date.now();
    if (found.expiresAt !== null && found.expiresAt <= now) return undefined;
    this.used.set(found.access.id, now);
    return found.access;
  }

  /**
   * A token the last reload did not have: looked up in the database at once, so that a token made a
   * moment ago works on its first request, not only after the next reload. A token not found stays
   * refused without a lookup for NOT_FOUND_MS, and at most LOOKUPS_PER_SECOND lookups run per second
   * (past them a new token waits for the reload, as before): guessing cannot load the database.
   */
  async lookUp(token: string): Promise<TokenAccess | undefined> {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const hash = sha256(token);
    const key = hash.toString('hex');
    const now = Date.now();
    if ((this.notFound.get(key) ?? 0) > now || !this.mayLookUp(now)) return undefined;
    let rows: Array<{ id: string; name: string; company_id: string | null; expires: number | null }>;
    try {
      ({ rows } = await this.pool.query(`${LIVE_TOKENS} AND token_sha256 = $1`, [hash]));
    } catch (error) {
      this.log(`could not look up an API token: ${(error as Error).message}`);
      return undefined;
    }
    if (!rows.length) {
      if (this.notFound.size >= MAX_NOT_FOUND) this.notFound.clear();
      this.notFound.set(key, now + NOT_FOUND_MS);
      return undefined;
    }
    this.tokens.set(key, cached(rows[0]));
    return this.check(token);
  }

  private mayLookUp(now: number): boolean {
    const second = Math.floor(now / 1000);
    if (this.lookups.second !== second) this.lookups = { second, count: 0 };
    return ++this.lookups.count <= LOOKUPS_PER_SECOND;
  }

  async refresh(): Promise<void> {
    try {
      if (this.used.size) {
        const used = [...this.used];
        this.used.clear();
        await this.pool.query(
          `UPDATE access.api_tokens t SET last_used_at = u.at
             FROM unnest($1::bigint[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id`,
          [used.map(([id]) => id), used.map(([, at]) => new Date(at))],
        );
      }
      const { rows } = await this.pool.query(LIVE_TOKENS);
      this.tokens = new Map(rows.map((r) => [r.hash, cached(r)]));
      this.presented = new Map();
      this.notFound = new Map();
      this.loaded = true;
    } catch (error) {
      this.log(`could not reload API tokens: ${(error as Error).message}`);
    }
  }
}

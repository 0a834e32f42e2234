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
      const { rows } = await this.pool.query(
        `SELECT id, name, company_id, encode(token_sha256, 'hex') AS hash, extract(epoch FROM expires_at) * 1000 AS expires
           FROM access.api_tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      );
      this.tokens = new Map(
        rows.map((r) => [
          r.hash,
          {
            access: Object.freeze({ id: r.id, name: r.name, companyId: r.company_id }),
            expiresAt: r.expires === null ? null : Number(r.expires),
          },
        ]),
      );
      this.presented = new Map();
      this.loaded = true;
    } catch (error) {
      this.log(`could not reload API tokens: ${(error as Error).message}`);
    }
  }
}

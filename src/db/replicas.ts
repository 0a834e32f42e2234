// Reads spread over PostgreSQL hot standbys (streaming replication), with the primary as the fallback.
import pg from 'pg';
import { isDatabaseUnavailable } from '../http/errors';
import type { Pool, Reader } from './pool';

/** One database the service may read from, with its pools (see createPool). */
export interface ReadTarget {
  /** "primary", "replica 1", ... */
  name: string;
  role: 'primary' | 'replica';
  /** host:port/database, never the password. */
  address: string;
  queries: Pool;
  streams: Pool;
  /** The admin pages' and reports' connections; the query pool when not given. */
  admin?: Pool;
}

export interface TargetStatus {
  name: string;
  role: 'primary' | 'replica';
  address: string;
  in_rotation: boolean;
  /** How far the replica's replay is behind, in ms (0 for the primary; null when unknown: not checked yet, or unreachable). */
  lag_ms: number | null;
  /** Why it is out of the rotation, when it is. */
  reason?: string;
}

/** Where a connection string points, without its credentials. */
export function addressOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

// Behind by the time since the last replayed transaction, but only while WAL has arrived that is not
// replayed yet: a replica of a primary with no writes is not behind, however old its last transaction.
const LAG = `
  SELECT CASE
           WHEN NOT pg_is_in_recovery() THEN 0
           WHEN pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0
           ELSE greatest(0, round(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000))
         END::bigint AS lag_ms`;

interface Health {
  inRotation: boolean;
  lagMs: number | null;
  reason?: string;
}

/**
 * Picks the database for each read: the replicas in turn, among those in the rotation, else the
 * primary. A replica leaves the rotation when it refuses connections, fails with a connection error
 * (at once, when a request meets it), or lags by more than `maxLagMs` (checked every `checkMs`,
 * from pg_last_xact_replay_timestamp()); it comes back by itself at the first good check.
 */
export class ReadRouter {
  /** The readers every domain read goes through: short statements, streams, and the admin pages'. */
  readonly queries: Reader;
  readonly streams: Reader;
  readonly admin: Reader;
  private readonly health = new Map<ReadTarget, Health>();
  private turn = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly primary: ReadTarget,
    readonly replicas: ReadTarget[] = [],
    private readonly options: { maxLagMs: number; checkMs: number; log?: (message: string) => void } = { maxLagMs: 30000, checkMs: 2000 },
  ) {
    for (const replica of replicas) {
      // Not in the rotation until a first check has found it well.
      this.health.set(replica, { inRotation: false, lagMs: null, reason: 'not checked yet' });
      // An idle connection whose server went away: the replica is down now, not at the next check.
      const down = (error: Error) => this.leave(replica, `connection lost (${error.message})`);
      replica.queries.on('error', down);
      replica.streams.on('error', down);
      replica.admin?.on('error', down);
    }
    this.queries = { acquire: (signal) => this.acquire('queries', signal) };
    this.streams = { acquire: (signal) => this.acquire('streams', signal) };
    this.admin = { acquire: (signal) => this.acquire('admin', signal) };
  }

  /** Checks every replica now, then every `checkMs`. */
  async start(): Promise<void> {
    await this.checkAll();
    if (this.replicas.length) this.timer = setInterval(() => void this.checkAll(), this.options.checkMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Whether reads go to the primary now: no replica is in the rotation. */
  primaryServesReads(): boolean {
    return !this.replicas.some((replica) => this.health.get(replica)?.inRotation);
  }

  /** The target the next read goes to. */
  pick(): ReadTarget {
    if (!this.replicas.length) return this.primary;
    const ready = this.replicas.filter((replica) => this.health.get(replica)?.inRotation);
    if (!ready.length) return this.primary;
    this.turn = (this.turn + 1) % ready.length;
    return ready[this.turn];
  }

  status(): TargetStatus[] {
    return [
      { name: this.primary.name, role: 'primary', address: this.primary.address, in_rotation: this.primaryServesReads(), lag_ms: 0 },
      ...this.replicas.map((replica) => {
        const h = this.health.get(replica)!;
        return {
          name: replica.name,
          role: 'replica' as const,
          address: replica.address,
          in_rotation: h.inRotation,
          lag_ms: h.lagMs,
          ...(h.reason ? { reason: h.reason } : {}),
        };
      }),
    ];
  }

  private async acquire(kind: 'queries' | 'streams' | 'admin', signal?: AbortSignal): Promise<pg.PoolClient> {
    const target = this.pick();
    try {
      return await poolOf(target, kind).acquire(signal);
    } catch (error) {
      if (target === this.primary || !isDatabaseUnavailable(error) || signal?.aborted) throw error;
      // The replica could not give a connection: out of the rotation, and this read goes elsewhere.
      this.leave(target, `no connection (${(error as Error).message})`);
      return poolOf(this.pick(), kind).acquire(signal);
    }
  }

  /** Out of the rotation; its lag is unknown unless a check has just measured it. */
  private leave(replica: ReadTarget, reason: string, lagMs: number | null = null): void {
    const h = this.health.get(replica)!;
    if (h.inRotation) this.options.log?.(`${replica.name} (${replica.address}) leaves the read rotation: ${reason}`);
    this.health.set(replica, { inRotation: false, lagMs, reason });
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => this.check(replica)));
  }

  /** One check, on a connection of its own, so that a busy pool never delays it. */
  private async check(replica: ReadTarget): Promise<void> {
    const bound = Math.max(1000, Math.min(this.options.checkMs, 5000));
    const client = new pg.Client({
      connectionString: replica.queries.options.connectionString,
      connectionTimeoutMillis: bound,
      statement_timeout: bound,
      application_name: 'rider-equipment-service/health',
    });
    client.on('error', () => undefined);
    let lagMs: number;
    try {
      await client.connect();
      lagMs = Number((await client.query(LAG)).rows[0].lag_ms);
    } catch (error) {
      this.leave(replica, `check failed (${(error as Error).message})`);
      return;
    } finally {
      void client.end().catch(() => undefined);
    }
    const before = this.health.get(replica)!;
    if (lagMs > this.options.maxLagMs) {
      this.leave(replica, `replay is ${lagMs} ms behind (REPLICA_MAX_LAG_MS ${this.options.maxLagMs})`, lagMs);
      return;
    }
    if (!before.inRotation) this.options.log?.(`${replica.name} (${replica.address}) is in the read rotation (${lagMs} ms behind)`);
    this.health.set(replica, { inRotation: true, lagMs });
  }
}

const poolOf = (target: ReadTarget, kind: 'queries' | 'streams' | 'admin'): Pool =>
  kind === 'admin' ? (target.admin ?? target.queries) : target[kind];

/** The router of a service with no replica: every read on the primary's pools. */
export function primaryOnly(queries: Pool, streams: Pool, admin?: Pool): ReadRouter {
  return new ReadRouter({
    name: 'primary',
    role: 'primary',
    address: addressOf(queries.options.connectionString ?? 'postgres://localhost/'),
    queries,
    streams,
    admin,
  });
}

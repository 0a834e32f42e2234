// Reads spread over PostgreSQL hot standbys (streaming replication), with the primary as the fallback.
import pg from 'pg';
import { isDatabaseUnavailable } from '../http/errors';
import type { Lane, Pool, Reader } from './pool';
import { LagWatch, verdict, type LagReading, type LagWatchOptions } from './replica-lag';

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
  /** A replica: whether it receives WAL from its primary, at its last check (null: not known). */
  replicating?: boolean | null;
}

/** Where a connection string points, without its credentials. */
export function addressOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

interface Health {
  /** The last check's reading (none yet: out of the rotation). */
  reading?: LagReading;
  /** Out since a connection error (why, and when), until a check made after it says otherwise. */
  down?: { reason: string; at: number };
  /** Until when (Date.now()) its lag is known to be within maxLagMs: in the rotation until then (see settle). */
  until?: number;
}

/**
 * Picks the database for each read: the replicas in turn, among those in the rotation, else the
 * primary. A replica is in the rotation only while its lag is known to be within `maxLagMs` at the
 * read: its last check (every `checkMs`, src/db/replica-lag.ts) found it `lagMs` behind `age` ms ago,
 * so it is at most lagMs + age behind now, and it serves reads only while that is within `maxLagMs`.
 * It leaves at once when it refuses connections or fails with a connection error (when a request meets
 * it), and comes back by itself at the first good check.
 *
 * The readings come from its own checks, or (`told`) from elsewhere through apply(): the supervisor of
 * several workers checks for all of them, so that every worker decides alike at any moment. A reading
 * moves a replica's deadline only when no worker can be acting on the old one meanwhile (settle): a
 * client whose reads move between workers, or between a replica and the primary, never sees a change
 * undone while the replica stays behind.
 */
export class ReadRouter {
  /** The readers every domain read goes through: short statements, streams, and the admin pages'. */
  readonly queries: Reader;
  readonly streams: Reader;
  readonly admin: Reader;
  private readonly health = new Map<ReadTarget, Health>();
  private turn = 0;
  private watch?: LagWatch;
  private firstReadings?: () => void;
  private readonly now: () => number;

  constructor(
    readonly primary: ReadTarget,
    readonly replicas: ReadTarget[] = [],
    private readonly options: Omit<LagWatchOptions, 'now'> & { now?: () => number; told?: boolean } = { maxLagMs: 30000, checkMs: 2000 },
  ) {
    this.now = options.now ?? Date.now;
    for (const replica of replicas) {
      // Not in the rotation until a first check has found it well.
      this.health.set(replica, {});
      // An idle connection whose server went away: the replica is down now, not at the next check.
      const down = (error: Error) => this.leave(replica, `connection lost (${error.message})`);
      replica.queries.on('error', down);
      replica.streams.on('error', down);
      replica.admin?.on('error', down);
    }
    this.queries = { acquire: (signal) => this.acquire('queries', signal) };
    this.streams = { acquire: (signal, lane) => this.acquire('streams', signal, lane) };
    this.admin = { acquire: (signal) => this.acquire('admin', signal) };
  }

  /**
   * Checks every replica now, then every `checkMs`. Told: waits for the first readings instead (for a
   * few seconds at most: until they come, reads go to the primary).
   */
  async start(): Promise<void> {
    if (!this.replicas.length) return;
    if (this.options.told) {
      if ([...this.health.values()].some((h) => h.reading)) return;
      const bound = Math.max(1000, Math.min(this.options.checkMs, 5000));
      await new Promise<void>((resolve) => {
        this.firstReadings = resolve;
        setTimeout(resolve, bound).unref();
      });
      return;
    }
    const urls = this.replicas.map((r) => ({ name: r.name, address: r.address, url: r.queries.options.connectionString ?? '' }));
    this.watch = new LagWatch(
      urls,
      { primaryUrl: this.primary.queries.options.connectionString, ...this.options, now: this.now },
      (readings) => this.apply(readings),
    );
    await this.watch.start();
  }

  stop(): void {
    this.watch?.stop();
  }

  /** The latest readings, one per replica in order (undefined: none yet); an older one than held is ignored. */
  apply(readings: Array<LagReading | undefined>): void {
    for (const [i, reading] of readings.entries()) {
      const replica = this.replicas[i];
      const h = replica && reading ? this.health.get(replica)! : undefined;
      if (!h || !reading || (h.reading && h.reading.at > reading.at)) continue;
      h.reading = reading;
      h.until = settle(h.until, reading, this.options.maxLagMs, this.margin());
      // A check made after the connection error speaks for the replica again.
      if (h.down && reading.at > h.down.at) {
        h.down = undefined;
        if (this.lagWithin(h, this.now())) this.options.log?.(`${replica.name} (${replica.address}) is back in the read rotation`);
      }
    }
    this.firstReadings?.();
    this.firstReadings = undefined;
  }

  /** Whether reads go to the primary now: no replica is in the rotation. */
  primaryServesReads(): boolean {
    const now = this.now();
    return !this.replicas.some((replica) => this.usable(replica, now));
  }

  /** The target the next read goes to. */
  pick(): ReadTarget {
    if (!this.replicas.length) return this.primary;
    const now = this.now();
    const ready = this.replicas.filter((replica) => this.usable(replica, now));
    if (!ready.length) return this.primary;
    this.turn = (this.turn + 1) % ready.length;
    return ready[this.turn];
  }

  status(): TargetStatus[] {
    const now = this.now();
    return [
      { name: this.primary.name, role: 'primary', address: this.primary.address, in_rotation: this.primaryServesReads(), lag_ms: 0 },
      ...this.replicas.map((replica) => {
        const h = this.health.get(replica)!;
        const inRotation = this.usable(replica, now);
        const reason = inRotation ? undefined : this.whyOut(h, now);
        return {
          name: replica.name,
          role: 'replica' as const,
          address: replica.address,
          in_rotation: inRotation,
          lag_ms: h.down ? null : (h.reading?.lagMs ?? null),
          ...(reason ? { reason } : {}),
          replicating: h.down ? null : (h.reading?.receiving ?? null),
        };
      }),
    ];
  }

  /** In the rotation at `now`: reachable, and its last reading plus that reading's age within maxLagMs. */
  private usable(replica: ReadTarget, now: number): boolean {
    const h = this.health.get(replica)!;
    return !h.down && this.lagWithin(h, now);
  }

  private lagWithin(h: Health, now: number): boolean {
    return h.until !== undefined && now <= h.until;
  }

  /**
   * How long before a deadline a reading must come to move it: well more than a reading takes to reach
   * every worker (a message between processes of one machine), and at most half of what a check leaves
   * of the bound, so that a slow check on a busy machine still renews a replica that is in time.
   */
  private margin(): number {
    return Math.min(SETTLE_MS, Math.max(0, Math.floor((this.options.maxLagMs - this.options.checkMs) / 2)));
  }

  private whyOut(h: Health, now: number): string {
    if (h.down) return h.down.reason;
    const r = h.reading;
    if (!r) return 'not checked yet';
    if (r.lagMs === null || r.lagMs > this.options.maxLagMs) return verdict(r, this.options.maxLagMs);
    // No check says so yet, but no check says otherwise: it is out until one does.
    const age = now - r.at;
    if (r.lagMs + age <= this.options.maxLagMs)
      return `${r.lagMs} ms behind at its last check, ${age} ms ago: too near REPLICA_MAX_LAG_MS ${this.options.maxLagMs} to come back (it must be ${this.margin()} ms within it)`;
    return `may be ${r.lagMs + age} ms behind (REPLICA_MAX_LAG_MS ${this.options.maxLagMs}): ${r.lagMs} ms at its last check, ${age} ms ago`;
  }

  private acquire(kind: 'queries' | 'streams' | 'admin', signal?: AbortSignal, lane?: Lane): Promise<pg.PoolClient> {
    const target = this.pick();
    const acquired = poolOf(target, kind).acquire(signal, lane);
    if (target === this.primary) return acquired;
    return acquired.catch((error: unknown) => {
      if (!isDatabaseUnavailable(error) || signal?.aborted) throw error;
      // The replica could not give a connection: out of the rotation, and this read goes elsewhere.
      this.leave(target, `no connection (${(error as Error).message})`);
      return poolOf(this.pick(), kind).acquire(signal, lane);
    });
  }

  /** Out of the rotation at once, until a check made after now finds it well. */
  private leave(replica: ReadTarget, reason: string): void {
    const now = this.now();
    if (this.usable(replica, now)) this.options.log?.(`${replica.name} (${replica.address}) leaves the read rotation: ${reason}`);
    this.health.get(replica)!.down = { reason, at: now };
  }
}

/**
 * A replica's deadline after `reading`: until when its lag is known to be within `maxLagMs`. Each reading
 * bounds it (at + maxLagMs - lagMs: staleness grows no faster than time), and an older bound stays true,
 * so the later of the two holds. But every worker acts on the deadline it holds, and a reading reaches
 * them one by one: a deadline is moved only while the old one is at least `margin` ahead of the reading
 * (no worker has acted on it yet, nor will before the reading reaches it), or, once it has passed, to a
 * new one at least `margin` ahead (the replica comes back for a while, not for a moment), and only once
 * it has replayed what was committed before it left (at - lagMs past the old deadline): from that
 * deadline the primary served its reads, and a client that read a change there must not find it undone
 * on the replica (readings late on a busy machine let a deadline pass while the replica was behind).
 * Otherwise the old one holds: every worker takes the replica out at the same instant, and none takes it
 * back at once. A failed check takes it out at once, the moment it left kept as its deadline.
 */
export function settle(until: number | undefined, reading: LagReading, maxLagMs: number, margin: number): number | undefined {
  const received = reading.received ?? reading.at;
  if (reading.lagMs === null) return until === undefined ? undefined : Math.min(until, received - 1);
  const bound = reading.at + maxLagMs - reading.lagMs;
  if (until !== undefined && bound <= until) return until;
  const held = until !== undefined && until >= received;
  if (held) return until - received >= margin ? bound : until;
  const caughtUp = until === undefined || reading.at - reading.lagMs > until;
  return caughtUp && bound - received >= margin ? bound : until;
}

/** The most a reading's margin is (see margin()). */
const SETTLE_MS = 250;

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

import pg from 'pg';
import type { Config } from '../config';
import { isAborted, whenAborted } from '../http/client-signal';
import { keepPrepared } from './prepared';

export const APPLICATION_NAME = 'rider-equipment-service';

/** The request's client went away: nobody is left to answer, so no statement is started for it. */
export class ClientGone extends Error {
  readonly code = 'CLIENT_GONE';
  constructor(when = 'while its answer was being prepared') {
    super(`client closed the connection ${when}`);
  }
}

/** No connection came free within DB_ACQUIRE_TIMEOUT_MS. The message is pg-pool's own, for the same case. */
export class PoolTimeout extends Error {
  readonly code = 'POOL_TIMEOUT';
  constructor(readonly ms: number) {
    super(`timeout exceeded when trying to connect (no database connection came free within ${ms} ms)`);
  }
}

/**
 * Every place of the stream pool stayed taken for DB_ACQUIRE_TIMEOUT_MS: exports are running, the
 * database is fine. Answered 503 `/problems/streams-busy` with Retry-After (http/errors.ts).
 */
export class StreamsBusy extends Error {
  readonly code = 'STREAMS_BUSY';
  constructor(ms: number) {
    super(`all export places are in use (none came free within ${ms} ms)`);
  }
}

/**
 * A stream whose client took less than STREAM_MIN_RATE (or, while other exports waited for a place,
 * STREAM_MIN_RATE_BUSY) over STREAM_MIN_RATE_WINDOW_MS while bytes waited for it: ended as for a client
 * that left, so that a trickle cannot keep an export place.
 */
export class ClientSlow extends ClientGone {
  constructor(bytes: number, ms: number, minRate: number, busy: boolean) {
    super();
    const rate = Math.floor((bytes * 1000) / ms);
    const under = busy ? `STREAM_MIN_RATE_BUSY ${minRate} while other exports waited` : `STREAM_MIN_RATE ${minRate}`;
    this.message = `client took ${bytes} bytes in ${ms} ms (${rate} bytes/s, under ${under}), so its answer was ended`;
  }
}

/** A stream whose client took no bytes for STREAM_IDLE_TIMEOUT_MS: ended as for a client that left. */
export class ClientIdle extends ClientGone {
  constructor(ms: number) {
    super();
    this.message = `client took no bytes for ${ms} ms, so its answer was ended`;
  }
}

const ignore = () => undefined;
const PLACE = Symbol('gate place');
type Placed = pg.PoolClient & { [PLACE]?: Gate };

interface Waiter {
  admit: () => void;
  fail: (error: Error) => void;
}

/**
 * A first-come queue of `size` places in front of a pg pool. A waiter leaves it at once when its
 * request's signal aborts (the client went away) or when `timeoutMs` passes, so nobody gets a
 * connection for a client that is gone. A place is given back only by `leave()`.
 */
class Gate {
  private free: number;
  private readonly queue = new Set<Waiter>();

  constructor(
    size: number,
    private readonly timeoutMs: number,
  ) {
    this.free = size;
  }

  get waiting(): number {
    return this.queue.size;
  }

  /** True when a place was free (taken at once, no promise made), else a promise of the place. */
  enter(signal?: AbortSignal): true | Promise<void> {
    if (signal && isAborted(signal)) return Promise.reject(new ClientGone('while waiting for a database connection'));
    if (this.free > 0 && this.queue.size === 0) {
      this.free -= 1;
      return true;
    }
    return new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        stopWatching?.();
        this.queue.delete(waiter);
      };
      const waiter: Waiter = {
        admit: () => {
          settle();
          resolve();
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      };
      const timer = setTimeout(() => waiter.fail(new PoolTimeout(this.timeoutMs)), this.timeoutMs);
      const stopWatching = signal && whenAborted(signal, () => waiter.fail(new ClientGone('while waiting for a database connection')));
      this.queue.add(waiter);
    });
  }

  leave(): void {
    const next = this.queue.values().next();
    if (next.done) this.free += 1;
    else next.value.admit(); // the place passes straight to the longest waiter
  }
}

/**
 * Places of a pool kept for one kind of work: the stream pool's 'admin' lane holds the admin CSV
 * downloads' places (DB_STREAM_POOL_ADMIN), which API exports cannot take.
 */
export type Lane = 'default' | 'admin';

/** Where a request's statements get their connection: a pool, or a choice among pools (see replicas.ts). */
export interface Reader {
  acquire(signal?: AbortSignal, lane?: Lane): Promise<pg.PoolClient>;
}

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: Error | boolean) => void) => void;

/**
 * A pg pool whose waiters queue in a Gate: `acquire(signal)` stops waiting when the request's client
 * leaves, and a connection's place is held until `release()`, which the stream code calls only once
 * the statement has really stopped in PostgreSQL. `pool.query()` and `pool.connect()` go through the
 * same gate, so `max` bounds every statement this pool runs.
 */
export class Pool extends pg.Pool {
  private readonly gates: Record<Lane, Gate>;

  /** `max` places for any work, plus `adminPlaces` that only the 'admin' lane takes (its own gate). */
  constructor({
    acquireTimeoutMs,
    adminPlaces = 0,
    prepared = 0,
    ...config
  }: pg.PoolConfig & { max: number; acquireTimeoutMs: number; adminPlaces?: number; prepared?: number }) {
    super({ ...config, max: config.max + adminPlaces });
    const shared = new Gate(config.max, acquireTimeoutMs);
    this.gates = { default: shared, admin: adminPlaces ? new Gate(adminPlaces, acquireTimeoutMs) : shared };
    // While checked out, pg-pool listens for nothing: a server that ends the connection between two
    // statements (a fast shutdown, a failover) would make it emit an 'error' nobody hears, which ends
    // the process. So each connection has a listener of its own for its whole life (an idle one is
    // also heard by pg-pool, which drops it). The statement in flight, if any, still fails with the
    // error; its release discards the connection.
    this.on('connect', (client) => {
      client.on('error', ignore);
      keepPrepared(client, prepared);
    });
    // A connection's place in its gate is given back when pg-pool has it back, whoever released it.
    this.on('release', (_error: Error | undefined, client: pg.PoolClient) => {
      const gate = (client as Placed)[PLACE];
      if (!gate) return;
      (client as Placed)[PLACE] = undefined;
      gate.leave();
    });
  }

  /** Requests waiting in `lane`'s gate for one of its places. */
  waiting(lane: Lane = 'default'): number {
    return this.gates[lane].waiting;
  }

  /** Requests waiting for a connection: in the gates, and (briefly, while one is being opened) in pg-pool. */
  get queued(): number {
    const { default: shared, admin } = this.gates;
    return shared.waiting + (admin === shared ? 0 : admin.waiting) + this.waitingCount;
  }

  /**
   * A connection for one request, from `lane`'s places. Rejects with ClientGone as soon as `signal`
   * aborts while waiting (or if it had already), and with PoolTimeout after DB_ACQUIRE_TIMEOUT_MS.
   */
  acquire(signal?: AbortSignal, lane: Lane = 'default'): Promise<pg.PoolClient> {
    const gate = this.gates[lane];
    const entered = gate.enter(signal);
    return entered === true ? this.checkOut(gate, signal) : entered.then(() => this.checkOut(gate, signal));
  }

  /** A connection from pg-pool for a place already taken in `gate`; the place goes back with its release. */
  private async checkOut(gate: Gate, signal?: AbortSignal): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await super.connect();
    } catch (error) {
      gate.leave();
      throw error;
    }
    (client as Placed)[PLACE] = gate;
    if (signal && isAborted(signal)) {
      // Opening the connection took a while and the client left meanwhile: start nothing.
      client.release();
      throw new ClientGone('while waiting for a database connection');
    }
    return client;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const acquired = this.acquire();
    if (!callback) return acquired;
    acquired.then(
      (client) => callback(undefined, client, client.release),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }
}

/**
 * 'queries' serves answers made by one short statement. 'streams' serves whole-table answers, whose
 * one COPY statement may rightly run for minutes: a pool of its own gives it its own, longer
 * statement timeout, and keeps long downloads from taking every connection the short queries need.
 * 'admin' serves the admin pages and reports: their statements read more than an API answer's, and
 * on connections of their own a few slow pages at once make only other pages wait, never the API.
 * Ids, counts and sums travel as exact text: bigint (20) and numeric (1700) keep pg's string form.
 */
export type PoolPurpose = 'queries' | 'streams' | 'admin';

export function createPool(
  url: string,
  config: Config,
  log: (msg: string) => void = console.error,
  purpose: PoolPurpose = 'queries',
): Pool {
  const streams = purpose === 'streams';
  const timeout = streams
    ? config.pool.streamStatementTimeoutMs
    : purpose === 'admin'
      ? config.pool.adminStatementTimeoutMs
      : config.pool.statementTimeoutMs;
  const pool = new Pool({
    connectionString: url,
    max: { queries: config.pool.max, streams: config.pool.streamMax, admin: config.pool.adminMax }[purpose],
    // The admin CSV downloads' own places: API exports filling the stream pool never block them.
    adminPlaces: streams ? config.pool.streamAdminMax : 0,
    // Whole-table statements are one COPY each, planned once per download: nothing to keep.
    prepared: streams ? 0 : config.pool.prepared,
    acquireTimeoutMs: config.pool.acquireTimeoutMs,
    // Only opening a connection waits in pg-pool itself; the gate above it owns the queue.
    connectionTimeoutMillis: config.pool.acquireTimeoutMs,
    idleTimeoutMillis: 30000,
    statement_timeout: timeout || undefined,
    application_name: purpose === 'queries' ? APPLICATION_NAME : `${APPLICATION_NAME}/${purpose}`,
    // Datetimes are written, and date filters read, in the service's zone. Whole-table statements
    // run without JIT: compiling one took about a second that no cancel interrupts (a client that
    // hung up kept its statement running that long), and their cost is output, not expressions.
    // The admin pages' statements read index ranges that stop after a page or at a count's cap: a
    // parallel plan only adds its workers' start (at 1,000,000 riders the rule "items past their
    // exchange day" counted in 191 ms with two workers, 16 ms without; docs/runs/ADMIN-BENCHMARKS.md) and takes
    // cores from the other supervisors' pages.
    options: `-c TimeZone=${config.timeZone}${streams ? ' -c jit=off' : ''}${purpose === 'admin' ? ' -c max_parallel_workers_per_gather=0' : ''}`,
  });
  // An idle client whose server went away emits here; without a listener the process would exit.
  pool.on('error', (err) => log(`database connection lost: ${err.message}`));
  return pool;
}

// The kept data's writer (migration 018): the systems that write riders, assignments and checks only
// append what they changed to kept_changes, and this folds it into the kept tables, a batch at a time,
// by calling kept_apply() on the primary: every KEPT_APPLY_MS while the log is short, and while it is
// long, one batch after another: at once (4,000 rows while nobody logs, 1,000 otherwise, fewer when a
// batch would last more than 3 s), unless the writers log faster than it could apply them; then with a
// pause nine times as long as the batch, 27 s at most (it yields to the writers, and catches up when
// they are done: it looks once a second, and ends the pause as soon as they log no faster than it
// applies). Every process
// that serves runs one, but only one applies: the one whose session holds the applier's lock (a session
// advisory lock, let go by PostgreSQL when that connection ends). The others only ask for the lock, once a
// second, and take over when it is free: so a fleet of processes applies in one ordered stream, on one
// budget, and one process says how far behind it is. A batch
// that meets a writer's lock gives up after 200 ms and is tried again at the next tick, so a writer never
// waits on it for long and never deadlocks with it.
import pg from 'pg';
import { isDatabaseUnavailable } from '../http/errors';
import { throttled, type Logger } from '../http/failure-log';
import { APPLICATION_NAME } from './pool';

/** SQLSTATEs that mean "not now": a lock held too long by a writer, or the database refusing writes for a while. */
const LOCK_NOT_AVAILABLE = '55P03';
const TRY_AGAIN = new Set(['55P03', '40P01', '40001', '25006', '53100', '57P01', '57P03', '08006', '08003', 'ECONNREFUSED', 'ECONNRESET']);

/** The applier's lock: held by the session of the one process that applies (see above). */
const LEADER_LOCK = 'rider-equipment kept applier';
/** How often a process that does not apply asks for the lock: the most the kept data waits after a leader is gone. */
const FOLLOWER_MS = 1000;
/**
 * One tick: applies a batch when this session holds the applier's lock, or takes the lock when it is free;
 * -1 when another session holds it. (CASE, unlike OR, evaluates in order: a holder does not take it again.)
 */
const TICK = `
  SELECT CASE WHEN l.leads THEN kept_apply($1) ELSE -1 END AS taken,
         pg_stat_get_tuples_inserted('kept_changes'::regclass) AS logged
    FROM (SELECT CASE
                   WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 1
                                   AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($2, 0)) THEN true
                   ELSE pg_try_advisory_lock(hashtextextended($2, 0))
                 END AS leads) l`;

/** The share of its time the applier works while the writers log faster than it can apply (the rest it pauses). */
const BURST_SHARE = 0.1;
/** While nobody logs (a backlog after a burst, an outage), batches this many times larger: fewer fixed costs, a fifth faster. */
const QUIET_BATCHES = 4;
/**
 * A batch takes about this long at most: its size follows what the last one applied per second. (A log
 * of riders moved between 3PLs applies ~130 rows a second at 1,000,000 riders: 4,000 rows would hold
 * the riders' rows, and the horizon of vacuum, for 30 s.)
 */
const MAX_BATCH_MS = 3000;
/** The smallest batch the time cap leaves. */
const MIN_BATCH = 50;
/** The log's inflow is measured over at least this long (the writers' statistics reach the server about once a second). */
const INFLOW_WINDOW_MS = 3000;

/** While it yields to the writers, how often it looks whether they still log faster than it applies. */
const YIELD_CHECK_MS = 1000;
/** The log's rows ever inserted, as the server counts them (the writers' pace), without applying anything. */
const LOGGED = `SELECT pg_stat_get_tuples_inserted('kept_changes'::regclass) AS logged`;

/** After failures in a row (the database away or read-only, kept_apply() missing), tries wait 1 s, 2 s, … up to this. */
const MAX_BACKOFF_MS = 30000;

/**
 * After a batch: the size of the next, and the pause before it when the batch was full (more waits;
 * undefined: the usual pause). The next one at once, unless the writers log (`inflow`, rows a second)
 * faster than batches back to back, each as long as this one, could apply: then after nine times as
 * long as it took, so that the writers keep nine tenths of the applier's core (a burst, an import), and
 * the applier catches up once they slow. While they log less than a tenth of that, batches are
 * QUIET_BATCHES times larger: the riders' rows a batch locks wait for nobody. Whatever the size, no
 * more rows than the last batch applied in MAX_BATCH_MS.
 */
export function pace(p: { batch: number; size: number; taken: number; tookMs: number; inflow: number }): {
  size: number;
  pauseMs?: number;
  /** With a pause: the writers' pace (rows a second) below which it ends early (what the batch applied a second). */
  resumeBelow?: number;
} {
  if (p.taken < p.size) return { size: p.batch };
  const tookMs = Math.max(p.tookMs, 1);
  const capacity = (p.size * 1000) / tookMs;
  const wanted = p.inflow < capacity / 10 ? p.batch * QUIET_BATCHES : p.batch;
  const size = Math.min(wanted, Math.max(MIN_BATCH, Math.floor((p.size * MAX_BATCH_MS) / tookMs)));
  if (p.inflow <= capacity) return { size, pauseMs: 0 };
  return { size, pauseMs: (Math.min(tookMs, MAX_BATCH_MS) * (1 - BURST_SHARE)) / BURST_SHARE, resumeBelow: capacity };
}

/**
 * Whether a pause that yields to the writers is over, `nowMs` into it: its time is up, or the writers
 * log no faster than the applier applies (they stopped or slowed), so that the backlog of a burst is
 * applied from its end, not up to 27 s later.
 */
export function yieldOver(y: { untilMs: number; resumeBelow: number }, nowMs: number, inflow: number): boolean {
  return nowMs >= y.untilMs || inflow <= y.resumeBelow;
}

export interface KeptApplierStatus {
  /** Rows the last batches took, in all since start. */
  applied: number;
  /** When a batch last found the log empty or took less than a full batch (the log then caught up). */
  caughtUpAt?: Date;
  /** Since when batches have been full or failing (more was waiting); unset once caught up. */
  behindSince?: Date;
  /** The last failure, until a batch succeeds. */
  lastError?: string;
  /** Another session held the applier's lock at the last tick (another process applies). */
  elsewhere: boolean;
}

export interface KeptApplierOptions {
  /** Pause between batches once the log is empty (KEPT_APPLY_MS). */
  intervalMs: number;
  /** Rows of the log one transaction takes. */
  batch?: number;
  log: Logger;
}

export class KeptApplier {
  private readonly pool: pg.Pool;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private ended?: Promise<void>;
  /** Batches failed in a row, other than by meeting a writer's lock (which is tried again at the next tick). */
  private failures = 0;
  private readonly batch: number;
  /** The size of the next batch: `batch`, or QUIET_BATCHES times it while the writers are quiet. */
  private size: number;
  /** Rows ever appended to the log, as the server counts them, at the last ticks: the writers' pace. */
  private readonly logged: Array<{ at: number; rows: number }> = [];
  /** The pause pace() asked for, while it lasts: until when, and the writers' pace that ends it early. */
  private yielding?: { untilMs: number; resumeBelow: number };
  readonly status: KeptApplierStatus = { applied: 0, elsewhere: false };

  constructor(
    url: string,
    private readonly options: KeptApplierOptions,
  ) {
    this.batch = options.batch ?? 1000;
    this.size = this.batch;
    // One connection of its own, without the short queries' statement timeout: a rebuild after a
    // TRUNCATE of a source table runs for as long as the data takes.
    // Its commits need not wait for the disk: a batch and the log rows it took leave in one
    // transaction, so a crash loses both and the batch is applied again. Never closed for idleness: the
    // session holds the applier's lock while this process applies.
    this.pool = new pg.Pool({
      connectionString: url,
      max: 1,
      idleTimeoutMillis: 0,
      application_name: `${APPLICATION_NAME} kept applier`,
      statement_timeout: 0,
      options: '-c synchronous_commit=off',
    });
    this.pool.on('error', (error) => this.failed(error));
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops ticking and ends the session (letting the applier's lock go); once, however often called. */
  stop(): Promise<void> {
    return (this.ended ??= (async () => {
      this.stopped = true;
      clearTimeout(this.timer);
      await this.running;
      await this.pool.end();
    })());
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = undefined));
    }, ms).unref();
  }

  private async tick(): Promise<void> {
    if (this.yielding && !(await this.yieldDone(this.yielding))) {
      this.schedule(Math.min(YIELD_CHECK_MS, this.yielding.untilMs - performance.now()));
      return;
    }
    this.yielding = undefined;
    const started = performance.now();
    const taken = await this.applyOnce();
    // A full batch: more is waiting, after pace()'s pause.
    const next = pace({ batch: this.batch, size: this.size, taken, tookMs: performance.now() - started, inflow: this.logInflow() });
    this.size = next.size;
    if (next.pauseMs && next.resumeBelow !== undefined) {
      this.yielding = { untilMs: performance.now() + next.pauseMs, resumeBelow: next.resumeBelow };
      this.schedule(Math.min(YIELD_CHECK_MS, next.pauseMs));
    } else if (next.pauseMs !== undefined) this.schedule(next.pauseMs);
    else if (taken < 0) this.schedule(Math.max(this.options.intervalMs, FOLLOWER_MS));
    else if (this.failures > 0) this.schedule(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.failures - 1)));
    else this.schedule(this.options.intervalMs);
  }

  /** The writers' rows a second into the log, since a tick at least INFLOW_WINDOW_MS ago (or the oldest kept). */
  logInflow(): number {
    const last = this.logged[this.logged.length - 1];
    const since = this.logged[0]; // the newest at least INFLOW_WINDOW_MS old (applyOnce drops older ones)
    return last && since && last.at > since.at ? ((last.rows - since.rows) * 1000) / (last.at - since.at) : 0;
  }

  /** Whether to end the pause now (yieldOver), the writers' pace read again; a failure to read it ends it (the batch then says why). */
  private async yieldDone(y: { untilMs: number; resumeBelow: number }): Promise<boolean> {
    try {
      const { rows } = await this.pool.query<{ logged: string }>(LOGGED);
      this.sample(Number(rows[0].logged));
    } catch {
      return true;
    }
    return yieldOver(y, performance.now(), this.logInflow());
  }

  /** A reading of the log's rows ever inserted; the oldest kept is the newest at least INFLOW_WINDOW_MS old. */
  private sample(rows: number): void {
    const now = performance.now();
    this.logged.push({ at: now, rows });
    while (this.logged.length > 2 && now - this.logged[1].at >= INFLOW_WINDOW_MS) this.logged.shift();
  }

  /** One batch: how many rows it took; -1 when another process applies; 0 on a failure (logged). */
  private async applyOnce(): Promise<number> {
    try {
      const size = this.size;
      const { rows } = await this.pool.query<{ taken: number; logged: string }>(TICK, [size, LEADER_LOCK]);
      const taken = rows[0].taken;
      this.sample(Number(rows[0].logged));
      this.status.elsewhere = taken < 0;
      this.status.lastError = undefined;
      this.failures = 0;
      if (taken > 0) this.status.applied += taken;
      if (taken >= 0 && taken < size) {
        this.status.caughtUpAt = new Date();
        this.status.behindSince = undefined;
      } else if (taken >= size) this.status.behindSince ??= new Date();
      return taken;
    } catch (error) {
      this.failed(error as Error & { code?: string });
      return 0;
    }
  }

  private failed(error: Error & { code?: string }): void {
    if (this.stopped) return;
    this.status.lastError = error.message;
    this.status.behindSince ??= new Date();
    // A database restarting (a crash, a failover) ends the connection without a SQLSTATE: "Connection
    // terminated unexpectedly", then refusals until it is back. The same batch is tried again.
    const expected = (error.code !== undefined && TRY_AGAIN.has(error.code)) || isDatabaseUnavailable(error);
    if (error.code !== LOCK_NOT_AVAILABLE) this.failures += 1;
    throttled(this.options.log).write(
      `kept applier: ${error.code ?? error.message}`,
      expected
        ? `kept data: a batch could not be applied now (${error.code ? `${error.code} ` : ''}${error.message}); it stays in kept_changes and is tried again`
        : `kept data: kept_apply() failed: ${error.stack ?? error.message}`,
    );
  }
}

/** What the database says of the kept data's freshness: changes waiting, and the oldest one's age. */
export async function keptFreshness(pool: Pick<pg.Pool, 'query'>): Promise<{ pending: number; behindMs: number }> {
  const { rows } = await pool.query<{ pending: string; behind_ms: number | null }>(
    `SELECT pending, (extract(epoch FROM clock_timestamp() - oldest) * 1000)::float8 AS behind_ms FROM kept_freshness()`,
  );
  return { pending: Number(rows[0].pending), behindMs: Math.max(0, Math.round(rows[0].behind_ms ?? 0)) };
}

// How far each hot standby's replay is behind, measured every REPLICA_CHECK_MS: by each process alone,
// or by the supervisor of several workers for all of them (one reading, one decision: src/server.ts).
import cluster, { type Worker } from 'node:cluster';
import pg from 'pg';

/** One check of one replica. */
export interface LagReading {
  /** How far its replay was behind, in ms; null when the check failed. */
  lagMs: number | null;
  /** When the check was sent (Date.now()): the lag is at most lagMs + the time since. */
  at: number;
  /** When its answer came (Date.now()), and so from when the reading can be acted on; `at` when not known. */
  received?: number;
  /** Why the check failed, when it did. */
  error?: string;
  /**
   * Whether the replica was receiving WAL from its primary (a WAL receiver running); absent when not known
   * (it did not answer). A standby that is not may still be fresh (its primary idle), but falls behind at
   * the primary's next write and stays there.
   */
  receiving?: boolean;
}

/** One replica's figures as a check reads them. */
export interface Measured {
  lagMs: number;
  receiving: boolean;
}

// Where the primary's WAL ends now: every transaction acknowledged before this reading is within it.
const PRIMARY_END = 'SELECT pg_current_wal_lsn()::text AS lsn';

// Not behind when replay has passed the primary's end as read just before (every transaction committed
// before the check is visible). With $2 (no primary to ask, or it refuses connections and so commits
// nothing), not behind either when all WAL received is replayed. Else behind by the time since the last
// replayed transaction's commit: the primary may be committing what the replica has not received.
// That time is NULL when the replica has replayed no transaction since it started (as after a restart),
// and it must stay NULL here: greatest() would skip it and say 0.
const LAG = `
  SELECT CASE
           WHEN NOT pg_is_in_recovery() THEN 0
           WHEN $1::pg_lsn IS NOT NULL AND pg_last_wal_replay_lsn() >= $1::pg_lsn THEN 0
           WHEN $2::boolean AND (pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn()) THEN 0
           ELSE round(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)
         END::bigint AS lag_ms,
         -- Its WAL receiver: present while it streams from its primary (or connects to it). Any role sees
         -- that it runs; its status only with pg_read_all_stats.
         NOT pg_is_in_recovery() OR EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE coalesce(status, 'streaming') = 'streaming')
           AS receiving`;

// A primary that answers these is down or stopping: it commits nothing. Any other failure (a timeout on
// a busy machine, above all) tells nothing of what it committed.
const PRIMARY_AWAY = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03']);

/** A statement on a connection of its own, so that a busy pool never delays it. */
async function queryAlone(url: string, boundMs: number, sql: string, values: unknown[] = []): Promise<pg.QueryResultRow> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: boundMs,
    statement_timeout: boundMs,
    application_name: 'rider-equipment-service/health',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query(sql, values)).rows[0];
  } finally {
    void client.end().catch(() => undefined);
  }
}

/**
 * One check of a replica: the primary's WAL end first (when `primaryUrl` is given), then how far the
 * replica's replay is from it. A replica that has not yet received what the primary committed is behind,
 * even when it has replayed all it received; so is one whose primary did not answer in time.
 */
export async function measureLag(url: string, checkMs: number, primaryUrl?: string): Promise<number> {
  return (await measureReplica(url, checkMs, primaryUrl)).lagMs;
}

/** A check that fails, with whether the replica was receiving WAL when it answered. */
class CheckFailed extends Error {
  constructor(
    message: string,
    readonly receiving: boolean,
  ) {
    super(message);
  }
}

/** measureLag, with whether the replica receives WAL from its primary. */
export async function measureReplica(url: string, checkMs: number, primaryUrl?: string): Promise<Measured> {
  const bound = Math.max(1000, Math.min(checkMs, 5000));
  let end: string | null = null;
  let byReceived = !primaryUrl;
  if (primaryUrl) {
    try {
      end = (await queryAlone(primaryUrl, bound, PRIMARY_END)).lsn as string;
    } catch (error) {
      byReceived = PRIMARY_AWAY.has(String((error as { code?: unknown }).code));
    }
  }
  const { lag_ms: lag, receiving } = await queryAlone(url, bound, LAG, [end, byReceived]);
  // Behind, with no transaction replayed since the replica started: how far is not known.
  if (lag === null) {
    const why = receiving ? '' : ' (it receives no WAL from its primary)';
    throw new CheckFailed(`replay is behind the primary and no transaction has been replayed yet${why}`, receiving as boolean);
  }
  // A commit stamped a moment ahead of the replica's clock is no lag.
  return { lagMs: Math.max(0, Number(lag)), receiving: receiving as boolean };
}

export interface LagWatchOptions {
  maxLagMs: number;
  checkMs: number;
  log?: (message: string) => void;
  /** The clock the readings are stamped with; Date.now unless a test gives its own. */
  now?: () => number;
  /** The primary, whose WAL end each check measures the replicas against. */
  primaryUrl?: string;
  /** The check itself; measureReplica unless a test gives its own (a lag alone: receiving is not known). */
  measure?: (url: string) => Promise<number | Measured>;
}

/**
 * Checks every replica now, then every `checkMs`, and hands each round of readings (one per replica,
 * in the order of `urls`) to `onReadings`. Logs each replica's coming and going by the checks' verdict.
 */
export class LagWatch {
  private readings: Array<LagReading | undefined>;
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly measure: (url: string) => Promise<number | Measured>;

  constructor(
    private readonly replicas: Array<{ name: string; address: string; url: string }>,
    private readonly options: LagWatchOptions,
    private readonly onReadings: (readings: Array<LagReading | undefined>) => void,
  ) {
    this.readings = replicas.map(() => undefined);
    this.now = options.now ?? Date.now;
    this.measure = options.measure ?? ((url) => measureReplica(url, options.checkMs, options.primaryUrl));
  }

  async start(): Promise<void> {
    await this.checkAll();
    if (this.replicas.length) this.timer = setInterval(() => void this.checkAll(), this.options.checkMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The last reading of each replica (undefined: not checked yet). */
  latest(): Array<LagReading | undefined> {
    return [...this.readings];
  }

  async checkAll(): Promise<void> {
    const next = await Promise.all(this.replicas.map((replica) => this.check(replica.url)));
    for (const [i, reading] of next.entries()) {
      const before = this.readings[i];
      // A check that outlasted the next one tells nothing newer.
      if (before && before.at > reading.at) continue;
      const bounded = boundedBy(before, reading);
      this.describe(i, before, bounded);
      this.readings[i] = bounded;
    }
    this.onReadings(this.latest());
  }

  private async check(url: string): Promise<LagReading> {
    const at = this.now();
    try {
      const measured = await this.measure(url);
      const received = this.now();
      return typeof measured === 'number'
        ? { lagMs: measured, at, received }
        : { lagMs: measured.lagMs, at, received, receiving: measured.receiving };
    } catch (error) {
      const receiving = error instanceof CheckFailed ? { receiving: error.receiving } : {};
      return { lagMs: null, at, received: this.now(), error: (error as Error).message, ...receiving };
    }
  }

  /** One line when a check puts a replica in the rotation or takes it out, and when it stops or starts receiving WAL. */
  private describe(i: number, before: LagReading | undefined, after: LagReading): void {
    if (after.receiving !== undefined && before?.receiving !== after.receiving && (before?.receiving !== undefined || !after.receiving)) {
      const { name, address } = this.replicas[i];
      this.options.log?.(
        after.receiving
          ? `${name} (${address}) receives WAL from its primary again`
          : `${name} (${address}) receives no WAL from its primary: it falls behind at the primary's next write`,
      );
    }
    const good = (r: LagReading | undefined) => r !== undefined && r.lagMs !== null && r.lagMs <= this.options.maxLagMs;
    if (good(before) === good(after) && before !== undefined) return;
    const { name, address } = this.replicas[i];
    if (good(after)) this.options.log?.(`${name} (${address}) is in the read rotation (${after.lagMs} ms behind)`);
    else if (before !== undefined)
      this.options.log?.(`${name} (${address}) leaves the read rotation: ${verdict(after, this.options.maxLagMs)}`);
  }
}

/**
 * A replica's staleness grows no faster than time: one at most `before.lagMs` behind when `before` was
 * taken is at most that plus the time since when `after` is. The tighter of that and the new check's
 * own figure is kept. The checks' figures are each an upper bound, but not all as tight (one judged by
 * the last replayed commit's time can say more than the time elapsed since a check that found the replica
 * up to date); kept so, a newer reading never judges a replica staler than the older one aged to the same
 * moment, and workers that hold different rounds for a moment (the rounds travel by IPC) decide alike: a
 * client moving between them never sees a change undone.
 */
function boundedBy(before: LagReading | undefined, after: LagReading): LagReading {
  if (!before || before.lagMs === null || after.lagMs === null) return after;
  const bound = before.lagMs + Math.max(0, after.at - before.at);
  return bound < after.lagMs ? { ...after, lagMs: bound } : after;
}

/** Why a check keeps a replica out of the rotation. */
export function verdict(reading: LagReading, maxLagMs: number): string {
  if (reading.lagMs === null) return `check failed (${reading.error})`;
  return `replay is ${reading.lagMs} ms behind (REPLICA_MAX_LAG_MS ${maxLagMs})`;
}

const LAG_MESSAGE = 'rider-equipment-service:replica-lag';

/** Supervisor to worker: a round of readings. Worker to supervisor, without readings: "the latest, please". */
interface LagMessage {
  type: typeof LAG_MESSAGE;
  readings?: Array<LagReading | null>;
}

const isLagMessage = (message: unknown): message is LagMessage => (message as LagMessage | null)?.type === LAG_MESSAGE;

/**
 * In the supervisor of several workers: one watch for all of them. Each round of readings goes to every
 * worker at once, and a worker that starts asks for the latest, so that every worker holds the same
 * readings and, on the same clock, makes the same decision at any moment.
 */
export function watchForWorkers(replicas: ConstructorParameters<typeof LagWatch>[0], options: LagWatchOptions): LagWatch {
  const tell = (worker: Worker, readings: Array<LagReading | undefined>) => {
    const message: LagMessage = { type: LAG_MESSAGE, readings: readings.map((r) => r ?? null) };
    // A worker that is exiting has nothing to read for.
    if (worker.isConnected()) worker.send(message, () => undefined);
  };
  const watch = new LagWatch(replicas, options, (readings) => {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker) tell(worker, readings);
  });
  cluster.on('message', (worker, message: unknown) => {
    if (isLagMessage(message) && !message.readings) tell(worker, watch.latest());
  });
  return watch;
}

/** In a worker: takes its readings from the supervisor's watch (see watchForWorkers), starting with the latest. */
export function readingsFromSupervisor(router: { apply(readings: Array<LagReading | undefined>): void }): void {
  process.on('message', (message: unknown) => {
    if (isLagMessage(message) && message.readings) router.apply(message.readings.map((r) => r ?? undefined));
  });
  process.send?.({ type: LAG_MESSAGE } satisfies LagMessage);
}

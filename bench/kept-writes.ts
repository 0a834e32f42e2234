// What our triggers (those that keep the kept tables: every user trigger, not the foreign keys' RI_
// ones) cost the systems that write the data. Each figure is taken with the triggers on and with them
// switched off by ALTER TABLE … DISABLE TRIGGER USER, which leaves the foreign keys' triggers on:
//
// - single: each write kind (assign, return, exchange, check, move, rename-rider) for the first, middle
//   and last rider by id, and for the last one with 500 more assignments and checks ("end+500"), plus
//   rename-product and rename-variation once; EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) in a transaction
//   that is rolled back, the triggers off in that transaction only. Target: at most 5 ms added.
// - bulk: --bulk patrol checks, and as many assignments, in one INSERT each, rolled back. Target: at most
//   1.5 times the time without.
// - concurrent: --writers connections writing autocommit statements on random riders for
//   --concurrent-seconds, once with the triggers and once without (switched off for the run, then back
//   on, Ctrl-C included); committed transactions per second and failures by SQLSTATE. With a function
//   kept_apply(integer) in the database, it runs beside the writers and is timed draining kept_changes.
//   Each run's rows are deleted and its riders put back afterwards.
// - freshness: how long a committed write takes to show in the kept data, with the service's applier.
// - applier: the applier's own time (kept_apply_all) for --bulk new checks over the fleet and a tenth as
//   many returns, and the rows of the log it applies a second, --bulk-repeat / 3 times, rolled back.
//
// It writes into the database and switches triggers off for a while: run it on a copy on this machine
// (loopback only), not on a database anything else writes. The report goes to stdout, progress to stderr.
//
//   npm run -s build && node dist/bench/kept-writes.js --url <database URL> [--repeat N (5)] [--bulk N (10000)] [--bulk-repeat N (9)]
//     [--concurrent-seconds S (30)] [--writers W (6)] [--only single,bulk,concurrent,freshness,applier] [--json FILE] [--no-apply]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { median, percentile } from './stats';
import { recordInto, toolHeader } from './record';
import { projectRoot, KeptApplier } from '../src/bench-entry';
import * as sql from './kept-writes-sql';
import type { Fleet, Stmt, WriteKind } from './kept-writes-sql';
import { rngFor } from '../db/seeds/demo-random';

const PHASES = ['single', 'bulk', 'concurrent', 'freshness', 'applier'] as const;
type Phase = (typeof PHASES)[number];

interface Options {
  url: string;
  repeat: number;
  /** Bulk imports per kind, each with and without the triggers: a 10,000-row INSERT varies by a third from run to run here. */
  bulkRepeat: number;
  bulk: number;
  concurrentSeconds: number;
  writers: number;
  only: Set<Phase>;
  json?: string;
  /** Run kept_apply() beside the writers with the triggers on, as the service does (--no-apply: not). */
  apply: boolean;
  /** Write the phases' tables into their regions of docs/WRITERS.md (bench/record.ts). */
  record: boolean;
}

const TARGET_ADDED_MS = 5;
const TARGET_BULK_RATIO = 1.5;
/** Every timed statement's bound: a write slower than this is reported as a timeout. */
const STATEMENT_TIMEOUT = '120s';
/** The cleanup of a concurrent run (deletes, riders moved back with the triggers on) may take longer. */
const CLEANUP_TIMEOUT = '600s';
/** The service's batch (src/db/kept-applier.ts). */
const APPLY_BATCH = 1000;
const APPLY_PAUSE_MS = 200;
const DRAIN_WAIT_MS = 60_000;
/** Riders each concurrent writer may move, and may rename. */
const MOVE_POOL = 2000;
const RENAME_POOL = 100;
/** The concurrent writers' mix, in relative weights. */
const MIX: Array<[Op, number]> = [
  ['assign', 30],
  ['return', 20],
  ['check', 25],
  ['move', 10],
  ['rename', 15],
];
type Op = 'assign' | 'return' | 'check' | 'move' | 'rename';

const log = (message: string) => console.error(message);
const out = (message = '') => console.log(message);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Options ---------------------------------------------------------------------------------------------

const USAGE =
  'usage: node dist/bench/kept-writes.js --url <database URL> [--repeat N] [--bulk N] [--bulk-repeat N] [--concurrent-seconds S] [--writers W] [--only single,bulk,concurrent,freshness,applier] [--json FILE] [--no-apply] [--record]';

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: a positive whole number, not ${value}\n${USAGE}`);
  return n;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      url: { type: 'string' },
      repeat: { type: 'string' },
      bulk: { type: 'string' },
      'bulk-repeat': { type: 'string' },
      'concurrent-seconds': { type: 'string' },
      writers: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      'no-apply': { type: 'boolean' },
      record: { type: 'boolean' },
    },
  });
  if (!values.url) throw new Error(USAGE);
  const only = (values.only ?? PHASES.join(',')).split(',').map((s) => s.trim());
  const unknown = only.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`--only: ${unknown.join(', ')} unknown; one or more of ${PHASES.join(', ')}`);
  return {
    url: values.url,
    repeat: positive('repeat', values.repeat, 5),
    bulk: positive('bulk', values.bulk, 10_000),
    bulkRepeat: positive('bulk-repeat', values['bulk-repeat'], 9),
    concurrentSeconds: positive('concurrent-seconds', values['concurrent-seconds'], 30),
    writers: positive('writers', values.writers, 6),
    only: new Set(only as Phase[]),
    json: values.json,
    apply: !values['no-apply'],
    record: values.record ?? false,
  };
}

/** This tool disables triggers and writes rows: it refuses anything but this machine. */
export function requireLoopback(url: string): void {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname);
  const local = ['', 'localhost', '127.0.0.1', '::1', '[::1]'].includes(host) || host.startsWith('/');
  if (!local) throw new Error(`refusing ${host}: this tool writes and switches triggers off, loopback databases only`);
}

const redacted = (url: string) => {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
};

// Connections, Ctrl-C ---------------------------------------------------------------------------------

interface Conn {
  client: pg.Client;
  pid: number;
}

/**
 * Ctrl-C (or SIGTERM) once: stop starting work and cancel the statements under way on the measuring
 * connections, then put the database back as usual. Twice: say so. Three times: leave at once, printing
 * the SQL that switches the triggers back on if they are off.
 */
class Stop {
  requested = false;
  private signals = 0;
  private readonly cancellable = new Set<number>();
  /** The triggers' states before the concurrent run "without" switched them off, while they are off. */
  triggersOff: TriggerState[] | undefined;

  constructor(private readonly url: string) {}

  watch(pid: number): void {
    this.cancellable.add(pid);
  }

  unwatch(pid: number): void {
    this.cancellable.delete(pid);
  }

  onSignal(): void {
    this.signals++;
    if (this.signals === 1) {
      log('\nStopping: cancelling the statements under way, then deleting what was inserted and switching triggers back on.');
      this.requested = true;
      void this.cancelAll();
    } else if (this.signals === 2) {
      log('Still putting the database back. Ctrl-C once more leaves now, as it is.');
    } else {
      if (this.triggersOff) log(`Triggers are OFF. Switch them back on with:\n${restoreSql(this.triggersOff)}`);
      process.exit(130);
    }
  }

  private async cancelAll(): Promise<void> {
    if (this.cancellable.size === 0) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'kept-writes cancel' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) pid', [[...this.cancellable]]);
    } catch (error) {
      log(`could not cancel the statements under way: ${(error as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

let stop: Stop;

async function connect(url: string, name: string, cancellable: boolean, timeout = STATEMENT_TIMEOUT): Promise<Conn> {
  const client = new pg.Client({ connectionString: url, application_name: `kept-writes ${name}` });
  // A connection that breaks fails its next query, which is where the failure is counted or reported.
  client.on('error', () => undefined);
  await client.connect();
  await client.query(`SET statement_timeout = '${timeout}'`);
  const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  if (cancellable) stop.watch(pid);
  return { client, pid };
}

async function disconnect(conn: Conn): Promise<void> {
  stop.unwatch(conn.pid);
  await conn.client.end().catch(() => undefined);
}

const sqlState = (error: unknown) => (error as { code?: string }).code ?? 'no SQLSTATE';

/** A statement's failure as the report shows it: 'timeout' (statement_timeout), 'cancelled' (Ctrl-C), or SQLSTATE and message. */
function failureText(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e.code === '57014') return /statement timeout/.test(e.message ?? '') ? 'timeout' : 'cancelled';
  return `${sqlState(error)}: ${e.message ?? String(error)}`;
}

// The database -----------------------------------------------------------------------------------------

interface DatabaseInfo {
  database: string;
  version: string;
  versionNum: number;
  riders: number;
  estimatedRows: Record<string, number>;
  userTriggers: number;
  keptChanges: boolean;
  keptApply: boolean;
}

/** Whether the change log and its applier exist now: another migration may add them between two runs. */
async function keptLog(client: pg.Client): Promise<{ keptChanges: boolean; keptApply: boolean }> {
  const row = (
    await client.query(
      `SELECT to_regclass('kept_changes') IS NOT NULL AS "keptChanges", to_regprocedure('kept_apply(integer)') IS NOT NULL AS "keptApply"`,
    )
  ).rows[0];
  return { keptChanges: row.keptChanges, keptApply: row.keptApply };
}

async function databaseInfo(client: pg.Client, fleet: Fleet): Promise<DatabaseInfo> {
  const v = (await client.query(`SELECT current_database() AS db, version() AS version, current_setting('server_version_num')::int AS num`))
    .rows[0];
  const estimates = await client.query(
    `SELECT relname, reltuples::bigint AS n FROM pg_class
      WHERE relname IN ('assignments', 'patrol_checks', 'patrol_check_answers', 'patrol_check_items', 'product_returns', 'product_exchanges')
        AND relkind = 'r' AND relnamespace = 'public'::regnamespace`,
  );
  const triggers = await client.query(
    `SELECT count(*)::int AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace`,
  );
  return {
    database: v.db,
    version: v.version,
    versionNum: v.num,
    riders: fleet.riders,
    estimatedRows: Object.fromEntries(estimates.rows.map((r) => [r.relname, Number(r.n)])),
    userTriggers: triggers.rows[0].n,
    ...(await keptLog(client)),
  };
}

// One write, timed -------------------------------------------------------------------------------------

interface ExplainOutput {
  'Execution Time': number;
  Triggers?: Array<{ 'Trigger Name': string; 'Constraint Name'?: string; Time: number; Calls: number }>;
}

interface Sample {
  withTriggers: boolean;
  /** The sum of the timed statements' execution times (triggers included); absent when one failed. */
  ms?: number;
  statements: Array<{ label: string; ms: number }>;
  /** Trigger → ms, summed over the statements; a foreign key's as "fk <constraint>". */
  triggers: Record<string, number>;
  /** Rows the write added to kept_changes, when that table exists. */
  keptChanges?: number;
  failure?: string;
}

const isForeignKey = (trigger: string) => trigger.startsWith('fk ');

async function explain(client: pg.Client, s: Stmt): Promise<{ ms: number; triggers: Array<[string, number]> }> {
  const { rows } = await client.query({ text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, values: s.values });
  const [plan] = rows[0]['QUERY PLAN'] as ExplainOutput[];
  const triggers = (plan.Triggers ?? []).map((t): [string, number] => {
    const name = t['Trigger Name'].startsWith('RI_ConstraintTrigger')
      ? `fk ${t['Constraint Name'] ?? t['Trigger Name']}`
      : t['Trigger Name'];
    return [name, t.Time];
  });
  return { ms: plan['Execution Time'], triggers };
}

const countKeptChanges = async (client: pg.Client) => Number((await client.query('SELECT count(*) AS n FROM kept_changes')).rows[0].n);

/** A whole transaction rolled back afterwards, or a savepoint inside one (the long-history rider's). */
type Scope = 'transaction' | 'savepoint';

async function open(client: pg.Client, scope: Scope): Promise<void> {
  if (scope === 'savepoint') {
    await client.query('SAVEPOINT kept_writes');
    return;
  }
  await client.query('BEGIN');
  await client.query(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
}

async function close(client: pg.Client, scope: Scope): Promise<void> {
  if (scope === 'transaction') {
    await client.query('ROLLBACK');
    return;
  }
  await client.query('ROLLBACK TO SAVEPOINT kept_writes');
  await client.query('RELEASE SAVEPOINT kept_writes');
}

/**
 * The kind's setup (triggers on), then, without triggers, ALTER TABLE … DISABLE TRIGGER USER on the
 * tables it writes (undone by the rollback), then each statement under EXPLAIN ANALYZE.
 */
async function runKind(client: pg.Client, kind: WriteKind, withTriggers: boolean, keptChanges: boolean, scope: Scope): Promise<Sample> {
  const sample: Sample = { withTriggers, statements: [], triggers: {} };
  await open(client, scope);
  try {
    for (const s of kind.setup) await client.query(s.text, s.values);
    const before = keptChanges ? await countKeptChanges(client) : undefined;
    if (!withTriggers) for (const table of kind.tables) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    for (const s of kind.timed) {
      const plan = await explain(client, s);
      sample.statements.push({ label: s.label, ms: plan.ms });
      for (const [name, ms] of plan.triggers) sample.triggers[name] = (sample.triggers[name] ?? 0) + ms;
    }
    sample.ms = sample.statements.reduce((sum, s) => sum + s.ms, 0);
    if (before !== undefined) sample.keptChanges = (await countKeptChanges(client)) - before;
  } catch (error) {
    sample.failure = failureText(error);
  } finally {
    await close(client, scope);
  }
  return sample;
}

interface Cell {
  kind: string;
  position: string;
  tables: string[];
  statements: string[];
  with: Sample[];
  without: Sample[];
}

const toCell = (k: WriteKind): Cell => ({
  kind: k.kind,
  position: k.position,
  tables: k.tables,
  statements: k.timed.map((s) => s.label),
  with: [],
  without: [],
});

const record = (cell: Cell, sample: Sample) => (sample.withTriggers ? cell.with : cell.without).push(sample);

/** With first in even repeats, without first in odd ones: neither always gets the warmer cache. */
const order = (repeat: number) => (repeat % 2 === 0 ? [true, false] : [false, true]);

// Single ------------------------------------------------------------------------------------------------

function singleKinds(fleet: Fleet, ids: sql.Ids): WriteKind[] {
  const perRider = fleet.positions.flatMap(({ position, rider }) =>
    Object.entries(sql.RIDER_KINDS).map(([kind, build]) => ({ kind, position, ...build(fleet, rider, ids) })),
  );
  return [...perRider, ...sql.catalogueKinds(fleet)];
}

function historyKinds(fleet: Fleet, ids: sql.Ids): WriteKind[] {
  const last = fleet.positions[fleet.positions.length - 1].rider;
  return sql.HISTORY_KINDS.map((kind) => ({ kind, position: `end+${sql.HISTORY}`, ...sql.RIDER_KINDS[kind](fleet, last, ids) }));
}

/**
 * One transaction: the last rider's long history, untimed and with the triggers on, then each kind
 * inside a savepoint rolled back after it, so that every kind starts from the same history.
 */
async function runHistory(
  client: pg.Client,
  fleet: Fleet,
  kinds: WriteKind[],
  cells: Cell[],
  repeat: number,
  keptChanges: boolean,
): Promise<void> {
  const last = fleet.positions[fleet.positions.length - 1].rider;
  await open(client, 'transaction');
  try {
    try {
      for (const s of sql.historySetup(fleet, last, fleet.idBase + 10_000_000)) await client.query(s.text, s.values);
    } catch (error) {
      const failure = `history: ${failureText(error)}`;
      for (const cell of cells)
        for (const withTriggers of [true, false]) record(cell, { withTriggers, statements: [], triggers: {}, failure });
      return;
    }
    for (const [i, kind] of kinds.entries())
      for (const withTriggers of order(repeat)) {
        if (stop.requested) return;
        record(cells[i], await runKind(client, kind, withTriggers, keptChanges, 'savepoint'));
      }
  } finally {
    await close(client, 'transaction');
  }
}

async function runSingle(conn: Conn, fleet: Fleet, o: Options): Promise<Cell[]> {
  const { keptChanges } = await keptLog(conn.client);
  const ids = new sql.Ids(fleet.idBase + 1);
  const kinds = singleKinds(fleet, ids);
  const history = historyKinds(fleet, ids);
  const cells = [...kinds, ...history].map(toCell);
  for (let repeat = 0; repeat < o.repeat && !stop.requested; repeat++) {
    const started = Date.now();
    for (const [i, kind] of kinds.entries())
      for (const withTriggers of order(repeat)) {
        if (stop.requested) break;
        record(cells[i], await runKind(conn.client, kind, withTriggers, keptChanges, 'transaction'));
      }
    if (!stop.requested) await runHistory(conn.client, fleet, history, cells.slice(kinds.length), repeat, keptChanges);
    log(`single: repeat ${repeat + 1}/${o.repeat} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return cells;
}

// Bulk --------------------------------------------------------------------------------------------------

async function runBulk(conn: Conn, fleet: Fleet, o: Options): Promise<Cell[]> {
  const { keptChanges } = await keptLog(conn.client);
  const kinds = sql.bulkKinds(fleet, o.bulk);
  const cells = kinds.map(toCell);
  for (let repeat = 0; repeat < o.bulkRepeat && !stop.requested; repeat++) {
    for (const [i, kind] of kinds.entries())
      for (const withTriggers of order(repeat)) {
        if (stop.requested) break;
        record(cells[i], await runKind(conn.client, kind, withTriggers, keptChanges, 'transaction'));
      }
    log(`bulk: repeat ${repeat + 1}/${o.bulkRepeat} done`);
  }
  return cells;
}

// Triggers off and back on (the concurrent run "without") ------------------------------------------------

/** A user trigger and its pg_trigger.tgenabled: O on, D off, R replica only, A always. */
interface TriggerState {
  table: string;
  name: string;
  enabled: string;
}

async function triggerStates(client: pg.Client, tables: string[]): Promise<TriggerState[]> {
  const { rows } = await client.query(
    `SELECT c.relname AS table, t.tgname AS name, t.tgenabled AS enabled
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.oid = ANY ($1::text[]::regclass[])
      ORDER BY 1, 2`,
    [tables],
  );
  return rows;
}

const STATE_CLAUSE: Record<string, string> = { O: 'ENABLE', D: 'DISABLE', R: 'ENABLE REPLICA', A: 'ENABLE ALWAYS' };

/** Every table's user triggers back on, then any that was not simply on before back to what it was. */
function restoreSql(states: TriggerState[]): string {
  const tables = [...new Set(states.map((s) => s.table))];
  return [
    ...tables.map((t) => `ALTER TABLE ${t} ENABLE TRIGGER USER;`),
    ...states
      .filter((s) => s.enabled !== 'O')
      .map((s) => `ALTER TABLE ${s.table} ${STATE_CLAUSE[s.enabled]} TRIGGER "${s.name.replace(/"/g, '""')}";`),
  ].join('\n');
}

async function disableTriggers(admin: pg.Client, tables: string[]): Promise<void> {
  // Waiting behind a long transaction of someone else's would stall the run, not measure it.
  await admin.query(`SET lock_timeout = '30s'`);
  for (const table of tables) await admin.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
}

/** On a connection of its own (the run's may be the one that broke), three tries, then checked against the states saved. */
async function restoreTriggers(url: string, states: TriggerState[]): Promise<void> {
  const tables = [...new Set(states.map((s) => s.table))];
  for (let attempt = 1; attempt <= 3; attempt++) {
    let conn: Conn | undefined;
    try {
      conn = await connect(url, 'restore', false);
      await conn.client.query(`SET lock_timeout = '60s'`);
      await conn.client.query(restoreSql(states));
      const now = await triggerStates(conn.client, tables);
      const wrong = states.filter((s) => now.find((n) => n.table === s.table && n.name === s.name)?.enabled !== s.enabled);
      if (wrong.length) throw new Error(`still not as before: ${wrong.map((w) => `${w.table}.${w.name}`).join(', ')}`);
      stop.triggersOff = undefined;
      log('concurrent: triggers back on');
      return;
    } catch (error) {
      log(`concurrent: switching the triggers back on failed (try ${attempt}/3): ${(error as Error).message}`);
      await sleep(2000);
    } finally {
      if (conn) await disconnect(conn);
    }
  }
  throw new Error(`TRIGGERS ARE STILL OFF. Run:\n${restoreSql(states)}`);
}

// Concurrent --------------------------------------------------------------------------------------------

interface WriterPlan {
  index: number;
  firstId: number;
  from: string;
  to: string;
  /** Riders of `from` this writer alone moves to `to`. */
  moves: string[];
  renames: string[];
}

interface ConcurrentPlan {
  riders: { ids: string[]; countries: string[] };
  companyA: string;
  companyB: string;
  writers: Array<Omit<WriterPlan, 'firstId'>>;
  /** Each rider a writer may move or rename, with its company and name before the run. */
  companies: Map<string, string>;
  names: Map<string, string>;
}

function shuffled<T>(items: T[], rng: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Half the writers move riders of the largest company A to the second B, half B to A, each on riders of
 * its own, so that two moves cross between the same two companies at the same time.
 */
async function planConcurrent(client: pg.Client, fleet: Fleet, writers: number): Promise<ConcurrentPlan> {
  // Seeded: the same picks in the run with the triggers and the run without.
  const rng = rngFor(42, 0, 0);
  const riders = await sql.loadRiderList(client);
  const [companyA, companyB] = [fleet.companies[0].id, fleet.companies[1].id];
  const pools = {
    [companyA]: shuffled(await sql.ridersOf(client, companyA), rng),
    [companyB]: shuffled(await sql.ridersOf(client, companyB), rng),
  };
  const renamePool = [
    ...new Set(Array.from({ length: writers * RENAME_POOL * 2 }, () => riders.ids[Math.floor(rng() * riders.ids.length)])),
  ];
  const plans = Array.from({ length: writers }, (_, index) => {
    const [from, to] = index % 2 === 0 ? [companyA, companyB] : [companyB, companyA];
    const sameWay = Math.ceil((writers - (index % 2)) / 2);
    const k = Math.floor(index / 2);
    const pool = pools[from];
    const share = Math.min(MOVE_POOL, Math.floor(pool.length / sameWay));
    return {
      index,
      from,
      to,
      moves: pool.slice(k * share, (k + 1) * share),
      renames: renamePool.slice(index * RENAME_POOL, (index + 1) * RENAME_POOL),
    };
  });
  const companies = new Map(plans.flatMap((p) => p.moves.map((id): [string, string] => [id, p.from])));
  const names = await sql.riderNames(
    client,
    plans.flatMap((p) => p.renames),
  );
  return { riders, companyA, companyB, writers: plans, companies, names };
}

interface OpStats {
  commits: number;
  errors: Record<string, number>;
  ms: number[];
}

type Stats = Record<Op, OpStats>;

const newStats = (): Stats => Object.fromEntries(MIX.map(([op]) => [op, { commits: 0, errors: {}, ms: [] }])) as unknown as Stats;

/** One autocommit statement: its time when it commits, its SQLSTATE when it fails. */
async function exec(client: pg.Client, s: Stmt, stats: OpStats): Promise<boolean> {
  const started = performance.now();
  try {
    await client.query(s.text, s.values);
    stats.commits++;
    stats.ms.push(performance.now() - started);
    return true;
  } catch (error) {
    const code = sqlState(error);
    stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    return false;
  }
}

function pickOp(rng: () => number): Op {
  const total = MIX.reduce((sum, [, w]) => sum + w, 0);
  let x = rng() * total;
  for (const [op, w] of MIX) {
    if (x < w) return op;
    x -= w;
  }
  return MIX[0][0];
}

/**
 * One writer: until the deadline, a random op on a random rider of the fleet; it moves and renames riders
 * of its own only, so that the run knows what to put back, and gives back only items it handed out.
 */
class Writer {
  private readonly rng: () => number;
  private nextId: number;
  private readonly moves: string[];
  /** This writer's assignments not given back yet, oldest first. */
  private readonly held: number[] = [];

  constructor(
    private readonly client: pg.Client,
    private readonly plan: WriterPlan,
    private readonly fleet: Fleet,
    private readonly riders: ConcurrentPlan['riders'],
    private readonly stats: Stats,
  ) {
    this.rng = rngFor(1000 + plan.index, 0, 0);
    this.nextId = plan.firstId;
    this.moves = [...plan.moves];
  }

  async run(deadline: number): Promise<void> {
    while (Date.now() < deadline && !stop.requested) await this[this.choose()]();
  }

  /** A writer out of riders to move (or, in a tiny dataset, of riders to rename or answers to give) assigns instead. */
  private choose(): Op {
    const op = pickOp(this.rng);
    const possible = { move: this.moves.length > 0, rename: this.plan.renames.length > 0, check: this.fleet.answers.size > 0 };
    return possible[op as keyof typeof possible] === false ? 'assign' : op;
  }

  private pick<T>(items: T[]): T {
    return items[Math.floor(this.rng() * items.length)];
  }

  private async assign(): Promise<void> {
    const id = this.nextId++;
    const rider = this.pick(this.riders.ids);
    const ok = await exec(
      this.client,
      sql.insertAssignment(id, rider, this.pick(this.fleet.variations), this.fleet.appUser),
      this.stats.assign,
    );
    if (ok) this.held.push(id);
  }

  private async return(): Promise<void> {
    if (this.held.length === 0) await this.assign();
    const id = this.held.shift();
    if (id !== undefined) await exec(this.client, sql.returnStatement(id, this.nextId++, this.fleet.appUser), this.stats.return);
  }

  private async check(): Promise<void> {
    const r = Math.floor(this.rng() * this.riders.ids.length);
    const answers = this.fleet.answers.get(this.riders.countries[r]) ?? [...this.fleet.answers.values()][0];
    const statement = sql.checkStatement(this.nextId++, this.riders.ids[r], this.fleet.patroller, answers, this.rng() > 0.2);
    await exec(this.client, statement, this.stats.check);
  }

  private async move(): Promise<void> {
    await exec(this.client, sql.moveStatement(this.moves.pop()!, this.plan.from, this.plan.to), this.stats.move);
  }

  private async rename(): Promise<void> {
    await exec(this.client, sql.renameStatement(this.pick(this.plan.renames)), this.stats.rename);
  }
}

interface ApplierStats {
  calls: number;
  applied: number;
  /** Calls that returned -1: another applier held the lock. */
  busy: number;
  errors: Record<string, number>;
  /** From the writers' end until kept_changes was empty; absent if it was not within the wait. */
  drainMs?: number;
  leftAfterWait?: number;
}

/**
 * kept_apply() as the service calls it (src/db/kept-applier.ts): every 200 ms while the log is short;
 * after a full batch, again once as long as that batch took has passed (at most half a core).
 */
async function applyLoop(client: pg.Client, stats: ApplierStats, done: () => boolean): Promise<void> {
  while (!done()) {
    let n = 0;
    const started = performance.now();
    try {
      n = Number((await client.query('SELECT kept_apply($1::int) AS n', [APPLY_BATCH])).rows[0].n);
      stats.calls++;
      if (n < 0) stats.busy++;
      else stats.applied += n;
    } catch (error) {
      const code = sqlState(error);
      stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    }
    await sleep(n < APPLY_BATCH ? APPLY_PAUSE_MS : performance.now() - started);
  }
}

async function waitForDrain(client: pg.Client, since: number, stats: ApplierStats): Promise<void> {
  while (Date.now() - since < DRAIN_WAIT_MS && !stop.requested) {
    const left = await countKeptChanges(client);
    stats.leftAfterWait = left;
    if (left === 0) {
      stats.drainMs = Date.now() - since;
      return;
    }
    await sleep(500);
  }
}

interface ConcurrentRun {
  withTriggers: boolean;
  seconds: number;
  commits: number;
  txPerSecond: number;
  errors: Record<string, number>;
  ops: Record<string, { commits: number; medianMs: number; p95Ms: number; errors: Record<string, number> }>;
  applier?: ApplierStats;
  cleanup: { ms: number; rows: Record<string, number>; failures: string[]; drained?: number };
}

function summarise(stats: Stats, seconds: number, withTriggers: boolean): Omit<ConcurrentRun, 'cleanup' | 'applier'> {
  const errors: Record<string, number> = {};
  let commits = 0;
  const ops: ConcurrentRun['ops'] = {};
  for (const [op, s] of Object.entries(stats)) {
    commits += s.commits;
    for (const [code, n] of Object.entries(s.errors)) errors[code] = (errors[code] ?? 0) + n;
    const sorted = [...s.ms].sort((a, b) => a - b);
    ops[op] = { commits: s.commits, medianMs: median(sorted), p95Ms: percentile(sorted, 95), errors: s.errors };
  }
  return { withTriggers, seconds, commits, txPerSecond: commits / seconds, errors, ops };
}

/** The writers, and the applier beside them when there is one; then the wait for kept_changes to empty. */
async function writeFor(o: Options, fleet: Fleet, plan: ConcurrentPlan, run: number, admin: pg.Client, applier: boolean) {
  const range = sql.concurrentIdRange(fleet, run);
  const conns: Conn[] = [];
  let applyConn: Conn | undefined;
  try {
    for (const w of plan.writers) conns.push(await connect(o.url, `writer ${w.index}`, true));
    if (applier) {
      applyConn = await connect(o.url, 'applier', true);
      // As the service's applier (src/db/kept-applier.ts): its commits do not wait for the disk.
      await applyConn.client.query('SET synchronous_commit = off');
    }
    const stats = newStats();
    const applied: ApplierStats = { calls: 0, applied: 0, busy: 0, errors: {} };
    let draining = true;
    const applying = applyConn ? applyLoop(applyConn.client, applied, () => !draining || stop.requested) : undefined;
    const started = Date.now();
    const deadline = started + o.concurrentSeconds * 1000;
    await Promise.all(
      conns.map((c, i) =>
        new Writer(c.client, { ...plan.writers[i], firstId: range.from + 10_000_000 * i }, fleet, plan.riders, stats).run(deadline),
      ),
    );
    const ended = Date.now();
    if (applying) {
      await waitForDrain(admin, ended, applied);
      draining = false;
      await applying;
    }
    return { ...summarise(stats, (ended - started) / 1000, run === 0), applier: applying ? applied : undefined };
  } finally {
    for (const c of conns) await disconnect(c);
    if (applyConn) await disconnect(applyConn);
  }
}

/** Deletes the run's rows and puts its riders back, in the triggers' state of the run, so that the kept tables stay right. */
async function cleanup(
  admin: pg.Client,
  fleet: Fleet,
  plan: ConcurrentPlan,
  run: number,
  applier: boolean,
): Promise<ConcurrentRun['cleanup']> {
  const started = Date.now();
  const rows: Record<string, number> = {};
  const failures: string[] = [];
  await admin.query(`SET statement_timeout = '${CLEANUP_TIMEOUT}'`);
  for (const s of [...sql.restoreRiders(plan.companies, plan.names), ...sql.cleanupStatements(sql.concurrentIdRange(fleet, run))]) {
    try {
      rows[s.label] = (await admin.query(s.text, s.values)).rowCount ?? 0;
    } catch (error) {
      failures.push(`${s.label}: ${failureText(error)}`);
    }
  }
  let drained: number | undefined;
  if (applier) drained = await drainAfterCleanup(admin);
  await admin.query(`SET statement_timeout = '${STATEMENT_TIMEOUT}'`);
  return { ms: Date.now() - started, rows, failures, drained };
}

/** The cleanup's own changes applied too (bounded), so that the kept tables are current again when the tool ends. */
async function drainAfterCleanup(admin: pg.Client): Promise<number> {
  let total = 0;
  const until = Date.now() + DRAIN_WAIT_MS;
  while (Date.now() < until) {
    const n = Number((await admin.query('SELECT kept_apply($1::int) AS n', [APPLY_BATCH])).rows[0].n);
    if (n > 0) total += n;
    if (n === 0) break;
    if (n < APPLY_BATCH) await sleep(APPLY_PAUSE_MS);
  }
  return total;
}

async function runConcurrentOnce(o: Options, fleet: Fleet, plan: ConcurrentPlan, withTriggers: boolean): Promise<ConcurrentRun> {
  const run = withTriggers ? 0 : 1;
  const admin = await connect(o.url, 'admin', false);
  try {
    const { keptApply } = await keptLog(admin.client);
    const applier = withTriggers && keptApply && o.apply;
    const states = withTriggers ? undefined : await triggerStates(admin.client, sql.CONCURRENT_TABLES);
    try {
      if (states) {
        stop.triggersOff = states;
        await disableTriggers(admin.client, sql.CONCURRENT_TABLES);
      }
      log(
        `concurrent: ${o.writers} writers for ${o.concurrentSeconds} s, triggers ${withTriggers ? 'on' : 'off'}${applier ? ', kept_apply beside them' : ''}`,
      );
      let cleaned: ConcurrentRun['cleanup'] = { ms: 0, rows: {}, failures: [] };
      // Whatever happened to the writers, their rows go before the triggers come back on.
      const result = await writeFor(o, fleet, plan, run, admin.client, applier).finally(async () => {
        log('concurrent: deleting the rows inserted and putting riders back');
        cleaned = await cleanup(admin.client, fleet, plan, run, applier);
        for (const f of cleaned.failures) log(`concurrent: cleanup failed: ${f}`);
      });
      return { ...result, cleanup: cleaned };
    } finally {
      if (states) await restoreTriggers(o.url, states);
    }
  } finally {
    await disconnect(admin);
  }
}

interface ConcurrentResult {
  companies: [string, string];
  with?: ConcurrentRun;
  without?: ConcurrentRun;
}

async function runConcurrent(conn: Conn, fleet: Fleet, o: Options): Promise<ConcurrentResult> {
  const plan = await planConcurrent(conn.client, fleet, o.writers);
  const result: ConcurrentResult = { companies: [plan.companyA, plan.companyB] };
  result.with = await runConcurrentOnce(o, fleet, plan, true);
  if (!stop.requested) result.without = await runConcurrentOnce(o, fleet, plan, false);
  return result;
}

// Report ------------------------------------------------------------------------------------------------

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function ms(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '-';
  return Math.abs(n) < 10 ? n.toFixed(2) : Math.abs(n) < 1000 ? n.toFixed(1) : n.toFixed(0);
}

interface Figures {
  medianMs?: number;
  /** "2/5 timeout": the samples that failed, by failure. */
  failed: string[];
}

function figures(samples: Sample[]): Figures {
  const done = samples.filter((s) => s.ms !== undefined).map((s) => s.ms!);
  const failures = new Map<string, number>();
  for (const s of samples) if (s.failure) failures.set(s.failure, (failures.get(s.failure) ?? 0) + 1);
  return {
    medianMs: done.length ? median(done) : undefined,
    failed: [...failures].map(([f, n]) => `${n}/${samples.length} ${f}`),
  };
}

const shown = (f: Figures) => [ms(f.medianMs), ...f.failed.map((x) => `(${x.length > 60 ? `${x.slice(0, 60)}…` : x})`)].join(' ');

/** Our triggers by their median time over the samples with triggers (0 in a sample that did not fire them), slowest first. */
function topTriggers(samples: Sample[], n = 3): Array<{ name: string; ms: number }> {
  const done = samples.filter((s) => s.ms !== undefined);
  const names = new Set(done.flatMap((s) => Object.keys(s.triggers)).filter((t) => !isForeignKey(t)));
  return [...names]
    .map((name) => ({ name, ms: median(done.map((s) => s.triggers[name] ?? 0)) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n);
}

interface CellSummary {
  kind: string;
  position: string;
  withMs?: number;
  withoutMs?: number;
  addedMs?: number;
  verdict: 'PASS' | 'FAIL' | 'ERROR';
  failures: { with: string[]; without: string[] };
  statements: Array<{ label: string; withMs?: number; withoutMs?: number }>;
  topTriggers: Array<{ name: string; ms: number }>;
  keptChanges?: { with?: number; without?: number };
}

function statementMedian(samples: Sample[], i: number): number | undefined {
  const values = samples.filter((s) => s.ms !== undefined).map((s) => s.statements[i].ms);
  return values.length ? median(values) : undefined;
}

function keptChangeMedian(samples: Sample[]): number | undefined {
  const values = samples.filter((s) => s.keptChanges !== undefined).map((s) => s.keptChanges!);
  return values.length ? median(values) : undefined;
}

/** A write with triggers that timed out is over any target; a figure missing without triggers is an error of the tool's. */
function summariseCell(cell: Cell, pass: (w: number, wo: number) => boolean): CellSummary {
  const w = figures(cell.with);
  const wo = figures(cell.without);
  const timedOut = cell.with.some((s) => s.failure === 'timeout');
  const measured = w.medianMs !== undefined && wo.medianMs !== undefined;
  const verdict = timedOut ? 'FAIL' : !measured ? 'ERROR' : pass(w.medianMs!, wo.medianMs!) ? 'PASS' : 'FAIL';
  const kept = { with: keptChangeMedian(cell.with), without: keptChangeMedian(cell.without) };
  return {
    kind: cell.kind,
    position: cell.position,
    withMs: w.medianMs,
    withoutMs: wo.medianMs,
    addedMs: measured ? w.medianMs! - wo.medianMs! : undefined,
    verdict,
    failures: { with: w.failed, without: wo.failed },
    statements: cell.statements.map((label, i) => ({
      label,
      withMs: statementMedian(cell.with, i),
      withoutMs: statementMedian(cell.without, i),
    })),
    topTriggers: topTriggers(cell.with),
    keptChanges: kept.with === undefined && kept.without === undefined ? undefined : kept,
  };
}

const triggersText = (t: CellSummary['topTriggers']) => t.map((x) => `${x.name} ${ms(x.ms)}`).join(', ') || '-';
const keptText = (k: CellSummary['keptChanges']) => (k ? `${k.with ?? '-'}/${k.without ?? '-'}` : '-');

function singleReport(cells: Cell[], keptChanges: boolean): { text: string; summaries: CellSummary[] } {
  const summaries = cells.map((c) => summariseCell(c, (w, wo) => w - wo <= TARGET_ADDED_MS));
  const rows: string[][] = [];
  for (const [i, s] of summaries.entries()) {
    const f = { with: figures(cells[i].with), without: figures(cells[i].without) };
    const verdict = s.verdict === 'FAIL' && s.addedMs === undefined ? 'FAIL (timeout)' : s.verdict;
    rows.push([
      s.kind,
      s.position,
      shown(f.with),
      shown(f.without),
      ms(s.addedMs),
      verdict,
      ...(keptChanges ? [keptText(s.keptChanges)] : []),
      triggersText(s.topTriggers),
    ]);
    if (s.statements.length > 1)
      for (const st of s.statements) {
        const added = st.withMs !== undefined && st.withoutMs !== undefined ? st.withMs - st.withoutMs : undefined;
        rows.push([`  · ${st.label}`, '', ms(st.withMs), ms(st.withoutMs), ms(added), '', ...(keptChanges ? [''] : []), '']);
      }
  }
  const header = [
    'kind',
    'position',
    'with ms',
    'without ms',
    'added ms',
    `≤ ${TARGET_ADDED_MS} ms`,
    ...(keptChanges ? ['kept_changes rows'] : []),
    'top triggers (ms, with)',
  ];
  return { text: table(header, rows), summaries };
}

function bulkReport(cells: Cell[]): { text: string; summaries: Array<CellSummary & { ratio?: number }> } {
  const summaries = cells.map((c) => {
    const s = summariseCell(c, (w, wo) => w / wo <= TARGET_BULK_RATIO);
    return { ...s, ratio: s.withMs !== undefined && s.withoutMs !== undefined ? s.withMs / s.withoutMs : undefined };
  });
  const rows = summaries.map((s, i) => [
    s.kind,
    s.position,
    shown(figures(cells[i].with)),
    shown(figures(cells[i].without)),
    s.ratio === undefined ? '-' : `${s.ratio.toFixed(2)}×`,
    s.verdict,
    triggersText(s.topTriggers),
  ]);
  return {
    text: table(['kind', 'rows', 'with ms', 'without ms', 'ratio', `≤ ${TARGET_BULK_RATIO}×`, 'top triggers (ms, with)'], rows),
    summaries,
  };
}

const errorsText = (errors: Record<string, number>) =>
  Object.entries(errors)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code}×${n}`)
    .join(', ') || '-';

const otherErrors = (errors: Record<string, number>) =>
  Object.fromEntries(Object.entries(errors).filter(([code]) => !['40P01', '40001', '55P03'].includes(code)));

function concurrentReport(r: ConcurrentResult): string {
  const runs = [r.with, r.without].filter((x): x is ConcurrentRun => x !== undefined);
  const lines = [
    table(
      ['triggers', 'seconds', 'committed', 'tx/s', '40P01 deadlock', '40001', '55P03', 'other errors'],
      runs.map((run) => [
        run.withTriggers ? 'on' : 'off',
        run.seconds.toFixed(1),
        String(run.commits),
        run.txPerSecond.toFixed(1),
        String(run.errors['40P01'] ?? 0),
        String(run.errors['40001'] ?? 0),
        String(run.errors['55P03'] ?? 0),
        errorsText(otherErrors(run.errors)),
      ]),
    ),
    '',
    table(
      ['op', ...runs.flatMap((run) => [`${run.withTriggers ? 'on' : 'off'}: committed`, 'median ms', 'p95 ms', 'errors'])],
      MIX.map(([op]) => [
        op,
        ...runs.flatMap((run) => {
          const s = run.ops[op];
          return [String(s.commits), ms(s.medianMs), ms(s.p95Ms), errorsText(s.errors)];
        }),
      ]),
    ),
  ];
  lines.push('', 'seconds: until the last statement begun before the end had finished; tx/s: committed ÷ seconds.');
  if (r.with && r.without)
    lines.push(
      '',
      `tx/s without ÷ with: ${(r.without.txPerSecond / r.with.txPerSecond).toFixed(1)}× (moves between companies ${r.companies.join(' ↔ ')})`,
    );
  const a = r.with?.applier;
  if (a)
    lines.push(
      `kept_apply beside the writers: ${a.calls} calls, ${a.applied} rows applied, ${a.busy} busy (-1), errors ${errorsText(a.errors)}; ` +
        (a.drainMs !== undefined
          ? `kept_changes empty ${(a.drainMs / 1000).toFixed(1)} s after the writers stopped`
          : `kept_changes not empty ${DRAIN_WAIT_MS / 1000} s after the writers stopped (${a.leftAfterWait} rows left)`),
    );
  for (const run of runs)
    lines.push(
      `cleanup (triggers ${run.withTriggers ? 'on' : 'off'}): ${(run.cleanup.ms / 1000).toFixed(1)} s, ` +
        Object.entries(run.cleanup.rows)
          .map(([label, n]) => `${label} ${n}`)
          .join(', ') +
        (run.cleanup.drained !== undefined ? `, kept_apply afterwards ${run.cleanup.drained} rows` : '') +
        (run.cleanup.failures.length ? `; FAILED: ${run.cleanup.failures.join('; ')}` : ''),
    );
  return lines.join('\n');
}

interface Results {
  startedAt: string;
  finishedAt?: string;
  url: string;
  options: Omit<Options, 'only' | 'url'> & { only: Phase[] };
  database: DatabaseInfo;
  fleet: { positions: Fleet['positions']; idBase: number; topProduct: string; topVariation: string };
  single?: { summaries: CellSummary[]; cells: Cell[] };
  bulk?: { summaries: CellSummary[]; cells: Cell[] };
  concurrent?: ConcurrentResult;
  freshness?: Freshness;
  applier?: ApplierCost;
  stopped?: boolean;
  error?: string;
}

function overall(r: Results): string {
  const lines = [
    `Dataset: ${r.database.database}, ${r.database.riders} riders (about ${r.database.estimatedRows.assignments ?? '?'} assignments, ${r.database.estimatedRows.patrol_checks ?? '?'} patrol checks, ${r.database.estimatedRows.patrol_check_answers ?? '?'} answers)`,
    `PostgreSQL: ${r.database.version}`,
    `User triggers: ${r.database.userTriggers}; kept_changes ${r.database.keptChanges ? 'present' : 'absent'}; kept_apply(integer) ${r.database.keptApply ? 'present' : 'absent'}`,
  ];
  if (r.single) {
    const failed = r.single.summaries.filter((s) => s.verdict !== 'PASS');
    lines.push(
      `single: ${r.single.summaries.length - failed.length}/${r.single.summaries.length} writes within ${TARGET_ADDED_MS} ms added` +
        (failed.length ? `; over it: ${failed.map((s) => `${s.kind} ${s.position} +${ms(s.addedMs)} ms`).join(', ')}` : ''),
    );
  }
  if (r.bulk)
    lines.push(
      `bulk: ${r.bulk.summaries.map((s) => `${s.kind} ${s.withMs !== undefined && s.withoutMs !== undefined ? (s.withMs / s.withoutMs).toFixed(2) : '-'}× ${s.verdict}`).join(', ')}`,
    );
  const c = r.concurrent;
  if (c?.with && c.without)
    lines.push(
      `concurrent: ${c.with.txPerSecond.toFixed(1)} tx/s with triggers, ${c.without.txPerSecond.toFixed(1)} without (${(c.without.txPerSecond / c.with.txPerSecond).toFixed(1)}× slower with); ` +
        `deadlocks ${c.with.errors['40P01'] ?? 0} with, ${c.without.errors['40P01'] ?? 0} without; other errors with: ${errorsText(otherErrors(c.with.errors))}`,
    );
  if (r.freshness)
    lines.push(
      `freshness: a committed write in the kept data after ${r.freshness.medianMs.toFixed(0)} ms (median), ${r.freshness.maxMs.toFixed(0)} ms at most`,
    );
  if (r.stopped) lines.push('Stopped early (Ctrl-C): the figures above are partial.');
  if (r.error) lines.push(`Ended on an error: ${r.error}`);
  return lines.join('\n');
}

// Freshness ----------------------------------------------------------------------------------------------

const FRESHNESS_TRIALS = 20;

export interface Freshness {
  trials: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  /** What the phases before left in the log (the concurrent writers' backlog), applied before the trials, and how long that took. */
  backlogRows: number;
  backlogMs: number;
}

/**
 * How soon a committed write shows in the kept data, with the applier the service runs (KeptApplier,
 * KEPT_APPLY_MS 200): an item given to the last rider, committed, then polled for in the rider's kept
 * list entry every 5 ms; the item is deleted again (and that applied) before the next trial.
 */
async function runFreshness(o: Options, fleet: Fleet): Promise<Freshness> {
  const writer = await connect(o.url, 'freshness', true);
  const applier = new KeptApplier(o.url, { intervalMs: 200, log });
  applier.start();
  const rider = fleet.positions[fleet.positions.length - 1].rider.id;
  const times: number[] = [];
  let backlogRows = 0;
  let backlogMs = 0;
  try {
    // What earlier phases left in the log first: each trial waits for its own write, not a backlog.
    const drained = performance.now();
    // Without the statement timeout: after the concurrent phase the backlog takes minutes at 1,000,000 riders.
    await writer.client.query('SET statement_timeout = 0');
    const { rows } = await writer.client.query('SELECT kept_apply_all() AS n');
    await writer.client.query('RESET statement_timeout');
    backlogRows = Number(rows[0].n);
    backlogMs = performance.now() - drained;
    log(`freshness: ${backlogRows} rows left in the log applied first, in ${(backlogMs / 1000).toFixed(1)} s`);
    for (let i = 0; i < FRESHNESS_TRIALS && !stop.requested; i++) {
      const id = fleet.idBase + 90_000_000 + i;
      await writer.client.query(
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
         SELECT $1, $2, product_id, id, now(), (SELECT min(id) FROM app_users), 0, 'assign' FROM product_variations ORDER BY id LIMIT 1`,
        [id, rider],
      );
      const started = performance.now();
      const shows = async () =>
        (await writer.client.query(`SELECT 1 FROM kept_assignment_days WHERE assignment_id = $1`, [id])).rowCount === 1;
      try {
        while (!(await shows())) {
          if (performance.now() - started > 60_000) throw new Error('freshness: a write did not show in the kept data within 60 s');
          await sleep(5);
        }
        times.push(performance.now() - started);
      } finally {
        // The item goes whatever happened: the database is left as found.
        await writer.client.query('DELETE FROM assignments WHERE id = $1', [id]);
      }
      await sleep(100 + Math.random() * 300);
    }
  } finally {
    await applier.stop();
    await disconnect(writer);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    trials: times.length,
    medianMs: median(times),
    p90Ms: percentile(sorted, 90),
    maxMs: sorted[sorted.length - 1],
    backlogRows,
    backlogMs,
  };
}

/** `--record`: the freshness phase as its region of docs/WRITERS.md shows it. */
export function freshnessTable(f: Freshness): string {
  return [
    '| writes | median ms | p90 ms | max ms |',
    '|---:|---:|---:|---:|',
    `| ${f.trials} | ${f.medianMs.toFixed(0)} | ${f.p90Ms.toFixed(0)} | ${f.maxMs.toFixed(0)} |`,
    '',
    f.backlogRows
      ? `Left in the log by the phases before, applied first: ${f.backlogRows} rows in ${(f.backlogMs / 1000).toFixed(1)} s.`
      : 'Nothing was left in the log before the trials.',
  ].join('\n');
}

export interface ApplierCost {
  rows: number;
  ms: number[];
}

/** `--record`: the applier's cost as its region of docs/WRITERS.md shows it (median, and rows a second). */
export function applierTable(a: ApplierCost): string {
  const ms = median(a.ms);
  return [
    '| rows of the log | median ms | rows applied a second |',
    '|---:|---:|---:|',
    `| ${a.rows} | ${ms.toFixed(0)} | ${((a.rows * 1000) / ms).toFixed(0)} |`,
  ].join('\n');
}

/** The applier's time for an import's log (see the header). */
async function runApplierCost(conn: Conn, fleet: Fleet, o: Options): Promise<ApplierCost> {
  const result: ApplierCost = { rows: 0, ms: [] };
  const runs = Math.max(1, Math.round(o.bulkRepeat / 3));
  const { client } = conn;
  for (let i = 0; i < runs && !stop.requested; i++) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
      await client.query('SELECT kept_apply_all()');
      await client.query(
        `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
         SELECT $1::bigint + row_number() OVER (), r.id, (SELECT min(id) FROM patrollers), now() - random() * interval '30 days', random() < 0.8, true, true
           FROM (SELECT id FROM riders ORDER BY random() LIMIT $2::int) r`,
        [fleet.idBase + 80_000_000, o.bulk],
      );
      await client.query(
        `UPDATE assignments SET deleted_at = now() WHERE id IN (SELECT id FROM assignments TABLESAMPLE SYSTEM (1) WHERE deleted_at IS NULL LIMIT $1)`,
        [Math.round(o.bulk / 10)],
      );
      const started = performance.now();
      const { rows } = await client.query('SELECT kept_apply_all() AS n');
      result.ms.push(performance.now() - started);
      result.rows = Number(rows[0].n);
    } finally {
      await client.query('ROLLBACK');
    }
  }
  return result;
}

// Main ----------------------------------------------------------------------------------------------------

async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  log(`${name}: starting`);
  const result = await work();
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return result;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  requireLoopback(o.url);
  stop = new Stop(o.url);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop.onSignal());
  const { url: _url, only, ...options } = o;
  const conn = await connect(o.url, 'single', true);
  let results: Results | undefined;
  try {
    const fleet = await sql.loadFleet(conn.client);
    results = {
      startedAt: new Date().toISOString(),
      url: redacted(o.url),
      options: { ...options, only: [...only] },
      database: await databaseInfo(conn.client, fleet),
      fleet: { positions: fleet.positions, idBase: fleet.idBase, topProduct: fleet.topProduct, topVariation: fleet.topVariation },
    };
    out(`kept-writes on ${results.database.database}: ${fleet.riders} riders, ${results.database.version.split(' on ')[0]}`);
    out(`riders: ${fleet.positions.map((p) => `${p.position} ${p.rider.id}`).join(', ')}; new ids from ${fleet.idBase}\n`);
    if (o.only.has('single') && !stop.requested) {
      const cells = await phase('single', () => runSingle(conn, fleet, o));
      const report = singleReport(
        cells,
        results.database.keptChanges || cells.some((c) => c.with.some((s) => s.keptChanges !== undefined)),
      );
      results.single = { summaries: report.summaries, cells };
      out(`## single writes (median of ${o.repeat}, EXPLAIN ANALYZE execution time incl. triggers, rolled back)\n\n${report.text}\n`);
      if (o.record)
        recordPhase(
          'single',
          `Added ms per write (with the triggers − without), median of ${o.repeat}`,
          singleTable(report.summaries),
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('bulk') && !stop.requested) {
      const cells = await phase('bulk', () => runBulk(conn, fleet, o));
      const report = bulkReport(cells);
      results.bulk = { summaries: report.summaries, cells };
      out(`## bulk (one INSERT of ${o.bulk} rows, median of ${o.bulkRepeat}, rolled back)\n\n${report.text}\n`);
      if (o.record)
        recordPhase(
          'bulk',
          `One INSERT of ${o.bulk} rows, median of ${o.bulkRepeat}, rolled back`,
          report.text,
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('concurrent') && !stop.requested) {
      results.concurrent = await phase('concurrent', () => runConcurrent(conn, fleet, o));
      out(
        `## concurrent (${o.writers} writers, ${o.concurrentSeconds} s each run, autocommit)\n\n${concurrentReport(results.concurrent)}\n`,
      );
      if (o.record)
        recordPhase(
          'concurrent',
          `${o.writers} writers, ${o.concurrentSeconds} s each run, autocommit`,
          concurrentSummary(concurrentReport(results.concurrent)),
          fleet.riders,
          results.database.version,
          o.apply,
        );
    }
    if (o.only.has('freshness') && !stop.requested) {
      const f = await phase('freshness', () => runFreshness(o, fleet));
      results.freshness = f;
      out(
        `## freshness (an item given to the last rider, committed; the service's applier, every 200 ms)\n\n` +
          `until the kept data shows it: median ${f.medianMs.toFixed(0)} ms, p90 ${f.p90Ms.toFixed(0)} ms, max ${f.maxMs.toFixed(0)} ms (${f.trials} writes)\n`,
      );
      if (o.record)
        recordPhase(
          'freshness',
          `A committed write until the kept data shows it (an item given to the last rider; the service's applier, every ${APPLY_PAUSE_MS} ms)`,
          freshnessTable(f),
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('applier') && !stop.requested) {
      const a = await phase('applier', () => runApplierCost(conn, fleet, o));
      results.applier = a;
      out(
        `## applier (its own time for ${o.bulk} new checks and ${Math.round(o.bulk / 10)} returns: ${a.rows} rows of the log; median of ${a.ms.length}, rolled back)\n\n` +
          `${applierTable(a)}\n`,
      );
      if (o.record)
        recordPhase(
          'applier',
          `The applier's own time (kept_apply_all) for ${o.bulk} new checks on as many riders and ${Math.round(o.bulk / 10)} returns; median of ${a.ms.length}, rolled back`,
          applierTable(a),
          fleet.riders,
          results.database.version,
        );
    }
  } catch (error) {
    if (results) results.error = (error as Error).message;
    throw error;
  } finally {
    await disconnect(conn);
    if (results) {
      results.finishedAt = new Date().toISOString();
      results.stopped = stop.requested || undefined;
      if (stop.requested) process.exitCode = 130;
      out(`## summary\n\n${overall(results)}`);
      if (o.json) {
        fs.writeFileSync(o.json, JSON.stringify(results, null, 2));
        log(`results written to ${o.json}`);
      }
    }
  }
}

/** `--record`: the single writes' added ms (with the triggers − without) per kind and rider position, one compact table. */
function singleTable(summaries: CellSummary[]): string {
  const positions = [...new Set(summaries.map((s) => s.position))];
  const kinds = [...new Set(summaries.map((s) => s.kind))];
  const cell = (kind: string, position: string) => {
    const s = summaries.find((x) => x.kind === kind && x.position === position);
    return s?.addedMs === undefined ? '' : `${s.addedMs >= 0 ? '+' : ''}${s.addedMs.toFixed(2)}`;
  };
  return [
    `| write | ${positions.join(' | ')} |`,
    `|---|${positions.map(() => '---:').join('|')}|`,
    ...kinds.map((kind) => `| ${kind} | ${positions.map((p) => cell(kind, p)).join(' | ')} |`),
  ].join('\n');
}

/** The concurrent report as --record writes it: the rates and errors with and without, their ratio, the applier's line. */
function concurrentSummary(report: string): string {
  const [rates] = report.split('\n\n');
  const lines = report.split('\n').filter((line) => line.startsWith('tx/s without') || line.startsWith('kept_apply beside'));
  return [rates, '', ...lines].join('\n');
}

/** The region of docs/WRITERS.md a phase's table goes to: `writers-<phase>`, `writers-concurrent-no-apply` for the writers without the applier. */
export const regionOf = (phase: Phase, apply: boolean) => `writers-${phase}${apply || phase !== 'concurrent' ? '' : '-no-apply'}`;

/** The command as the recorded header names it: the database's URL and the JSON file's path left out. */
export function commandOf(argv: readonly string[], tool = 'kept-writes'): string {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [name] = argv[i].split('=');
    if (name === '--url' || name === '--json') {
      out.push(`${name} …`);
      if (!argv[i].includes('=')) i++;
    } else out.push(argv[i]);
  }
  return [`node dist/bench/${tool}.js`, ...out].join(' ');
}

/**
 * `--record`: one phase's table into its region `writers-<phase>@<riders>` of docs/WRITERS.md
 * (bench/record.ts), under a line naming the run. The concurrent writers without the applier
 * (--no-apply) have a region of their own, `writers-concurrent-no-apply`.
 */
function recordPhase(phase: Phase, title: string, body: string, riders: number, version: string, apply = true): void {
  const key = regionOf(phase, apply);
  const header = toolHeader(commandOf(process.argv.slice(2)), riders, version);
  const file = path.join(projectRoot, 'docs', 'WRITERS.md');
  const { written, missing } = recordInto(file, [{ key, title, body }], riders, header);
  log(`--record: docs/WRITERS.md ${written.length ? `region written: ${written.join(', ')}` : `has no region ${missing.join(', ')}`}`);
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });

// What bench/kept-writes.ts does to the database besides the writes it times: its connections and Ctrl-C,
// what it reads of the database, and the triggers switched off and back on for the concurrent run "without".
import pg from 'pg';
import type { Fleet } from './kept-writes-sql';
import { STATEMENT_TIMEOUT, log, sleep } from './kept-writes-options';

// Connections, Ctrl-C ---------------------------------------------------------------------------------

export interface Conn {
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

export let stop: Stop;

/** main's first step: the Stop that the connections and the phases look at. */
export function startStop(url: string): void {
  stop = new Stop(url);
}

export async function connect(url: string, name: string, cancellable: boolean, timeout = STATEMENT_TIMEOUT): Promise<Conn> {
  const client = new pg.Client({ connectionString: url, application_name: `kept-writes ${name}` });
  // A connection that breaks fails its next query, which is where the failure is counted or reported.
  client.on('error', () => undefined);
  await client.connect();
  await client.query(`SET statement_timeout = '${timeout}'`);
  const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  if (cancellable) stop.watch(pid);
  return { client, pid };
}

export async function disconnect(conn: Conn): Promise<void> {
  stop.unwatch(conn.pid);
  await conn.client.end().catch(() => undefined);
}

export const sqlState = (error: unknown) => (error as { code?: string }).code ?? 'no SQLSTATE';

/** A statement's failure as the report shows it: 'timeout' (statement_timeout), 'cancelled' (Ctrl-C), or SQLSTATE and message. */
export function failureText(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e.code === '57014') return /statement timeout/.test(e.message ?? '') ? 'timeout' : 'cancelled';
  return `${sqlState(error)}: ${e.message ?? String(error)}`;
}

// The database -----------------------------------------------------------------------------------------

export interface DatabaseInfo {
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
export async function keptLog(client: pg.Client): Promise<{ keptChanges: boolean; keptApply: boolean }> {
  const row = (
    await client.query(
      `SELECT to_regclass('kept_changes') IS NOT NULL AS "keptChanges", to_regprocedure('kept_apply(integer)') IS NOT NULL AS "keptApply"`,
    )
  ).rows[0];
  return { keptChanges: row.keptChanges, keptApply: row.keptApply };
}

export async function databaseInfo(client: pg.Client, fleet: Fleet): Promise<DatabaseInfo> {
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

// Triggers off and back on (the concurrent run "without") ------------------------------------------------

/** A user trigger and its pg_trigger.tgenabled: O on, D off, R replica only, A always. */
interface TriggerState {
  table: string;
  name: string;
  enabled: string;
}

export async function triggerStates(client: pg.Client, tables: string[]): Promise<TriggerState[]> {
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

export async function disableTriggers(admin: pg.Client, tables: string[]): Promise<void> {
  // Waiting behind a long transaction of someone else's would stall the run, not measure it.
  await admin.query(`SET lock_timeout = '30s'`);
  for (const table of tables) await admin.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
}

/** On a connection of its own (the run's may be the one that broke), three tries, then checked against the states saved. */
export async function restoreTriggers(url: string, states: TriggerState[]): Promise<void> {
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

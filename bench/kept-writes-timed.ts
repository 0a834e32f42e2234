// The single and bulk phases of bench/kept-writes.ts: one write kind under EXPLAIN ANALYZE, with the
// triggers and without, rolled back; each kind for each rider position, and the bulk imports.
import type pg from 'pg';
import * as sql from './kept-writes-sql';
import type { Fleet, Stmt, WriteKind } from './kept-writes-sql';
import { STATEMENT_TIMEOUT, log, type Options } from './kept-writes-options';
import { failureText, keptLog, stop, type Conn } from './kept-writes-db';

// One write, timed -------------------------------------------------------------------------------------

interface ExplainOutput {
  'Execution Time': number;
  Triggers?: Array<{ 'Trigger Name': string; 'Constraint Name'?: string; Time: number; Calls: number }>;
}

export interface Sample {
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

export const isForeignKey = (trigger: string) => trigger.startsWith('fk ');

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

export const countKeptChanges = async (client: pg.Client) =>
  Number((await client.query('SELECT count(*) AS n FROM kept_changes')).rows[0].n);

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

export interface Cell {
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

export async function runSingle(conn: Conn, fleet: Fleet, o: Options): Promise<Cell[]> {
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

export async function runBulk(conn: Conn, fleet: Fleet, o: Options): Promise<Cell[]> {
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

// The freshness and applier phases of bench/kept-writes.ts: how soon a committed write shows in the kept
// data with the service's applier, and the applier's own time for an import's log; their --record tables.
import { median, percentile } from './stats';
import { KeptApplier } from '../src/bench-entry';
import type { Fleet } from './kept-writes-sql';
import { STATEMENT_TIMEOUT, log, sleep, type Options } from './kept-writes-options';
import { connect, disconnect, stop, type Conn } from './kept-writes-db';

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
export async function runFreshness(o: Options, fleet: Fleet): Promise<Freshness> {
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

/** `--record`: the freshness phase as its region of docs/runs/WRITERS-BENCHMARKS.md shows it. */
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

/** `--record`: the applier's cost as its region of docs/runs/WRITERS-BENCHMARKS.md shows it (median, and rows a second). */
export function applierTable(a: ApplierCost): string {
  const ms = median(a.ms);
  return [
    '| rows of the log | median ms | rows applied a second |',
    '|---:|---:|---:|',
    `| ${a.rows} | ${ms.toFixed(0)} | ${((a.rows * 1000) / ms).toFixed(0)} |`,
  ].join('\n');
}

/** The applier's time for an import's log (see the header). */
export async function runApplierCost(conn: Conn, fleet: Fleet, o: Options): Promise<ApplierCost> {
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

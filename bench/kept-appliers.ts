// What applying the kept data costs the database when several service processes run: N appliers (each
// as a service process runs it, src/db/kept-applier.ts) draining one backlog of the change log, and the
// CPU each one's PostgreSQL backend took meanwhile. The backlog is a mix of writes (checks changed,
// riders moved to another 3PL, items returned), each undone by a second write in the same transaction,
// so the data ends as it began and only the log grows. The server must be on this machine (/proc).
//
//   npm run -s build && node dist/bench/kept-appliers.js --url <database URL> [--appliers N (2)] [--rows R (50000)] [--seconds S (600)]
import { parseArgs } from 'node:util';
import { KeptApplier } from '../src/bench-entry';
import { withClient } from './dataset';
import { requireLoopback } from './kept-writes';
import { cpuMicroseconds } from './profile';

/** One round of the backlog: each write, then its undoing (the same rows, the same transaction). */
const ROUND = `
  BEGIN;
  CREATE TEMP TABLE picked_checks ON COMMIT DROP AS SELECT id FROM patrol_checks TABLESAMPLE SYSTEM (0.5) LIMIT 4000;
  CREATE TEMP TABLE picked_riders ON COMMIT DROP AS SELECT id FROM riders TABLESAMPLE SYSTEM (1) LIMIT 200;
  CREATE TEMP TABLE picked_items ON COMMIT DROP AS
    SELECT id FROM assignments TABLESAMPLE SYSTEM (0.5) WHERE deleted_at IS NULL LIMIT 2000;
  UPDATE patrol_checks SET sticker_valid = NOT sticker_valid WHERE id IN (TABLE picked_checks);
  UPDATE patrol_checks SET sticker_valid = NOT sticker_valid WHERE id IN (TABLE picked_checks);
  CREATE TEMP TABLE moved ON COMMIT DROP AS SELECT id, company_id FROM riders WHERE id IN (TABLE picked_riders);
  UPDATE riders SET company_id = (SELECT min(id) FROM companies WHERE id <> riders.company_id) WHERE id IN (TABLE picked_riders);
  UPDATE riders r SET company_id = m.company_id FROM moved m WHERE r.id = m.id;
  UPDATE assignments SET deleted_at = now() WHERE id IN (TABLE picked_items);
  UPDATE assignments SET deleted_at = NULL WHERE id IN (TABLE picked_items);
  COMMIT;`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, appliers: { type: 'string' }, rows: { type: 'string' }, seconds: { type: 'string' } },
  });
  if (!values.url) throw new Error('usage: node dist/bench/kept-appliers.js --url <database URL> [--appliers N] [--rows R] [--seconds S]');
  requireLoopback(values.url);
  const url = values.url;
  const [n, rows, seconds] = [Number(values.appliers ?? 2), Number(values.rows ?? 50000), Number(values.seconds ?? 600)];
  await withClient(url, async (db) => {
    const count = async () => Number((await db.query('SELECT count(*) AS n FROM kept_changes')).rows[0].n);
    const others = await db.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name LIKE '%kept applier' AND datname = current_database()`,
    );
    if (others.rowCount)
      throw new Error(`another applier works on this database (a service running?): backends ${others.rows.map((r) => r.pid)}`);
    while ((await count()) < rows) await db.query(ROUND);
    const backlog = await count();
    const appliers = Array.from({ length: n }, () => new KeptApplier(url, { intervalMs: 200, log: (m) => console.error(m) }));
    appliers.forEach((applier) => applier.start());
    let pids: number[] = [];
    while (pids.length < n) {
      pids = (
        await db.query(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE '%kept applier' AND datname = current_database()`)
      ).rows.map((r) => r.pid);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const cpu0 = pids.map((pid) => cpuMicroseconds(pid) ?? 0);
    const started = performance.now();
    while ((await count()) > 0 && performance.now() - started < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, 100));
    const wall = (performance.now() - started) / 1000;
    const cores = pids.map((pid, i) => ((cpuMicroseconds(pid) ?? 0) - cpu0[i]) / 1e6 / wall);
    const left = await count();
    await Promise.all(appliers.map((applier) => applier.stop()));
    console.log(
      JSON.stringify({
        appliers: n,
        backlog,
        left,
        seconds: Number(wall.toFixed(1)),
        rowsPerSecond: Math.round((backlog - left) / wall),
        coresPerBackend: cores.map((c) => Number(c.toFixed(2))),
        cores: Number(cores.reduce((a, b) => a + b, 0).toFixed(2)),
        appliedByEach: appliers.map((applier) => applier.status.applied),
      }),
    );
  });
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });

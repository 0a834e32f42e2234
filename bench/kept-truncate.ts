// What a TRUNCATE of one of the data's tables costs the kept data (docs/KEPT-DATA.md, "TRUNCATE"): for
// each table the writers may empty, the TRUNCATE and the applier's batch that takes it (which writes
// afresh the kept tables reading that table, migration 036) in one transaction that is rolled back,
// the batch timed, and the kept tables it emptied or wrote counted; and, with --full, the rebuild of every
// kept table a TRUNCATE logged before migration 036 leads to, for comparison. The log is applied
// first (for real), so that each batch takes only the TRUNCATE.
//
//   npm run -s build && node dist/bench/kept-truncate.js --url <database URL> [--full] [--record]
//
// It writes nothing that stays, but takes the tables' locks while it runs (loopback only: use a copy).
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { projectRoot } from '../src/bench-entry';
import { recordInto, toolHeader, WRITERS_RUNS } from './record';
import { commandOf, requireLoopback } from './kept-writes';

const log = (message: string) => console.error(message);

/** The statements timed, each in a transaction of its own. */
const STATEMENTS = [
  'TRUNCATE patrol_check_answers',
  'TRUNCATE product_exchanges',
  'TRUNCATE patrol_checks CASCADE',
  'TRUNCATE assignments CASCADE',
  'TRUNCATE riders CASCADE',
];
/** What a TRUNCATE logged before migration 036 left in the log: no table named, everything rebuilt. */
const FULL = `INSERT INTO kept_changes (kind) VALUES ('T')`;

interface Timed {
  statement: string;
  /** The kept tables the statement and its batch emptied, or inserted or deleted rows of. */
  written: string[];
  seconds: number;
}

async function timed(db: pg.Client, statement: string): Promise<Timed> {
  await db.query('BEGIN');
  try {
    const touched = async () =>
      new Map(
        (
          await db.query<{ t: string; n: string }>(
            `SELECT relname AS t, (pg_stat_get_xact_tuples_inserted(oid) + pg_stat_get_xact_tuples_deleted(oid)) || ' ' || pg_relation_filenode(oid) AS n
               FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace
                AND (relname LIKE 'kept\\_%' OR relname LIKE 'rider\\_list\\_%' OR relname = 'patrol_check_questioners')
                AND relname NOT IN ('kept_changes', 'kept_moved_riders', 'kept_log_state')`,
          )
        ).rows.map((r) => [r.t, r.n]),
      );
    const before = await touched();
    await db.query(statement);
    const started = performance.now();
    await db.query('SELECT kept_apply(1000)');
    const seconds = (performance.now() - started) / 1000;
    const after = await touched();
    const written = [...after].filter(([t, n]) => n !== before.get(t)).map(([t]) => t);
    return { statement, written: written.sort(), seconds };
  } finally {
    await db.query('ROLLBACK');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { url: { type: 'string' }, full: { type: 'boolean' }, record: { type: 'boolean' } },
  });
  if (!values.url) throw new Error('usage: node dist/bench/kept-truncate.js --url <database URL> [--full] [--record]');
  requireLoopback(values.url);
  const db = new pg.Client({ connectionString: values.url, application_name: 'kept-truncate' });
  await db.connect();
  try {
    await db.query('SET synchronous_commit = off');
    log('the log applied first');
    await db.query('SELECT kept_apply_all()');
    const riders = Number((await db.query('SELECT count(*) FROM riders')).rows[0].count);
    const version = `PostgreSQL ${String((await db.query('SHOW server_version')).rows[0].server_version)}`;
    const runs: Timed[] = [];
    for (const statement of [...STATEMENTS, ...(values.full ? [FULL] : [])]) {
      log(`${statement} …`);
      const run = await timed(db, statement);
      log(`  ${run.seconds.toFixed(1)} s: ${run.written.join(', ') || 'nothing'}`);
      runs.push(run);
    }
    const body = [
      '| statement | the batch that takes it | kept tables emptied or written afresh |',
      '|---|---:|---|',
      ...runs.map(
        (r) =>
          `| ${r.statement === FULL ? 'a TRUNCATE logged before migration 036 (every kept table)' : `\`${r.statement}\``} | ${r.seconds.toFixed(1)} s | ${r.written.length} |`,
      ),
    ].join('\n');
    console.log(body);
    if (values.record) {
      const header = toolHeader(commandOf(process.argv.slice(2), 'kept-truncate'), riders, version);
      const sections = [{ key: 'kept-truncate', title: 'A TRUNCATE, and the batch that takes it (rolled back)', body }];
      const { written } = recordInto(path.join(projectRoot, WRITERS_RUNS), sections, riders, header);
      log(`--record: ${WRITERS_RUNS} regions written: ${written.join(', ') || 'none (add <!-- bench:kept-truncate@N --> first)'}`);
    }
  } finally {
    await db.end();
  }
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).stack ?? error);
    process.exitCode = 1;
  });

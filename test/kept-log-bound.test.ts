// The change log is bounded when no service applies it (migration 029): past kept_log_state.max_rows
// writers stop logging, and the next applier rebuilds the kept data, once every transaction that may have
// skipped the log has ended. And the counts logged as differences come out right whatever order the
// applier takes them in. A database of this suite's own: it changes the bound, which is the database's.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { KeptApplier } from '../src/db/kept-applier';
import { projectRoot } from '../src/paths';
import { databaseUrl, testDatabases } from './support/databases';
import { useOwnDatabase } from './support/own-database';
import { eventually } from './support/wait';
import { ATTENTION_KEPT, keptDrift, noDrift } from './support/rolled-back';

const NAME = `${testDatabases().fixture}_log_bound`;
const DATA = `
  INSERT INTO countries (id, code, name) VALUES (1, 'AE', 'Emirates');
  INSERT INTO companies (id, name) VALUES (1, 'One'), (2, 'Two');
  INSERT INTO riders (id, name, company_id, country_id) SELECT g, 'Rider ' || g, 1 + g % 2, 1 FROM generate_series(1, 20) g;
  INSERT INTO patrollers (id, name) VALUES (1, 'Patroller');
  INSERT INTO app_users (id, name) VALUES (1, 'User');
  INSERT INTO product_categories (id, name) VALUES (1, 'Helmets');
  INSERT INTO products (id, name, category_id, image_url, exchange_after_days) VALUES (1, 'Helmet', 1, '', 30);
  INSERT INTO product_variations (id, product_id, name) VALUES (1, 1, 'M');
  INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
    SELECT g, g, 1, 1, '2025-05-01 10:00+00', 1, 0, 'assign' FROM generate_series(1, 20) g;
`;

// The counts the log now carries as differences are among the attention tables; the others a batch writes afresh.
const KEPT = [
  ...ATTENTION_KEPT,
  { table: 'rider_list_entries', view: 'rider_list_entry_docs' },
  { table: 'kept_rider_name_grams', view: 'kept_rider_name_gram_docs' },
  { table: 'kept_rider_name_gram_counts', view: 'kept_rider_name_gram_count_docs' },
];

useOwnDatabase(NAME, [DATA]);
let owner: pg.Pool;
let nextCheck = 1000;

beforeAll(async () => {
  owner = new pg.Pool({ connectionString: databaseUrl(process.env.TEST_ADMIN_URL!, NAME), max: 4 });
  owner.on('error', () => undefined); // its idle connections end with the database, after the suite
});
afterAll(() => owner?.end());

const check = (rider: number, at = '2025-06-02 10:05+00') =>
  `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
   VALUES (${nextCheck++}, ${rider}, 1, '${at}', true, ${rider % 3 !== 0}, true)`;
const one = async <T>(sql: string) => (await owner.query(sql)).rows[0] as T;
const logRows = async () => (await one<{ n: number }>('SELECT count(*)::int AS n FROM kept_changes')).n;
const state = () =>
  one<{ overflowed: boolean; rebuild: boolean; waits: string | null }>(
    'SELECT overflowed, rebuild, rebuild_waits_for::text AS waits FROM kept_log_state',
  );
/** One batch of the applier, in a transaction of its own (as the service calls it). */
const applyOnce = async () => (await one<{ n: number }>('SELECT kept_apply(1000) AS n')).n;

describe('the change log when no service applies it', () => {
  afterEach(() => owner.query('UPDATE kept_log_state SET max_rows = DEFAULT'));

  it('stops growing past its bound, and the next applier rebuilds the kept data after the writers that skipped it end', async () => {
    await owner.query('SELECT kept_apply_all()');
    // Bounded at 50 rows: checks (two rows each) until the statistics say it is past.
    await owner.query('UPDATE kept_log_state SET max_rows = 50');
    await eventually(
      async () => {
        await owner.query(check(1 + (nextCheck % 20), `2025-06-0${1 + (nextCheck % 9)} 10:05+00`));
        return (await state()).overflowed;
      },
      { ms: 10000, every: 50, what: 'the log past its bound' },
    );
    const bounded = await logRows();
    expect(bounded).toBeGreaterThan(50);

    // Writers go on; the log does not grow, and the kept data falls behind.
    for (let i = 0; i < 20; i++) await owner.query(check(1 + i, '2025-06-10 10:05+00'));
    await owner.query(`UPDATE riders SET company_id = 2 WHERE id = 1`);
    await owner.query(`UPDATE riders SET name = 'Renamed Rider' WHERE id = 3`);
    expect(await logRows()).toBe(bounded);

    // A writer's transaction that skipped the log is still open when the applier comes back.
    const late = await owner.connect();
    try {
      await late.query('BEGIN');
      await late.query(check(5, '2025-06-11 10:05+00'));
      expect(await applyOnce()).toBe(1000); // the log is open again from this commit
      expect(await state()).toEqual({ overflowed: false, rebuild: true, waits: null });
      await owner.query(check(6, '2025-06-12 10:05+00')); // logged again
      expect(await logRows()).toBe(2); // what the log held went; a check's gaps and its count
      await applyOnce(); // notes the transactions that may have skipped the log
      // The late writer's transaction id, as pg_locks gives it (32 bits).
      const { xid } = (await late.query(`SELECT (pg_current_xact_id()::text::bigint % 4294967296)::text AS xid`)).rows[0];
      expect((await state()).waits).toContain(xid);
      // Not while the late writer's transaction is open: its change is in no log and not yet visible.
      await applyOnce();
      expect((await state()).rebuild).toBe(true);
      await late.query('COMMIT');
    } finally {
      late.release();
    }
    await applyOnce(); // the rebuild
    expect(await state()).toEqual({ overflowed: false, rebuild: false, waits: null });
    expect(await keptDrift(owner, KEPT)).toEqual(noDrift(KEPT));
    // The late writer's check is counted.
    const counted = await one<{ checks: number }>(
      `SELECT checks FROM kept_check_quarters WHERE bucket = '2025-06-11 10:00+00' AND company_id = 2`,
    );
    expect(counted.checks).toBe(1);
  });

  it('is caught up by the service\u2019s applier after an overflow, with nothing lost', async () => {
    await owner.query('UPDATE kept_log_state SET max_rows = 50');
    await eventually(
      async () => {
        await owner.query(check(1 + (nextCheck % 20), '2025-07-01 09:00+00'));
        return (await state()).overflowed;
      },
      { ms: 10000, every: 50, what: 'the log past its bound' },
    );
    await owner.query('UPDATE kept_log_state SET max_rows = DEFAULT');
    const applier = new KeptApplier(databaseUrl(process.env.TEST_ADMIN_URL!, NAME), { intervalMs: 50, log: () => undefined });
    applier.start();
    try {
      await eventually(async () => !(await state()).rebuild && !(await state()).overflowed && (await logRows()) === 0, {
        ms: 20000,
        every: 100,
        what: 'the rebuild after the overflow',
      });
    } finally {
      await applier.stop();
    }
    expect(await keptDrift(owner, KEPT)).toEqual(noDrift(KEPT));
  });
});

describe('counts logged as differences', () => {
  it('come out right when a deletion is applied before the insertion it undoes', async () => {
    await owner.query('SELECT kept_apply_all()');
    const id = nextCheck;
    await owner.query(check(2, '2025-08-01 08:00+00'));
    await owner.query(`DELETE FROM patrol_checks WHERE id = ${id}`);
    // The deletion's rows first: the quarter's count goes below zero for one batch, then back.
    const client = await owner.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE later ON COMMIT DROP AS SELECT * FROM kept_changes WHERE n > 0`);
      await client.query(`DELETE FROM kept_changes WHERE n > 0`);
      await client.query('SELECT kept_apply(1000)');
      const below = await client.query(`SELECT checks FROM kept_check_quarters WHERE bucket = '2025-08-01 08:00+00'`);
      expect(below.rows).toEqual([{ checks: -1 }]);
      await client.query(`INSERT INTO kept_changes SELECT * FROM later`);
      await client.query('SELECT kept_apply(1000)');
      const after = await client.query(`SELECT checks FROM kept_check_quarters WHERE bucket = '2025-08-01 08:00+00'`);
      expect(after.rows).toEqual([]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await keptDrift(owner, KEPT)).toEqual(noDrift(KEPT));
  });

  it('move with a check written while its rider moved: the check counts for the 3PL the rider has', async () => {
    await owner.query('SELECT kept_apply_all()');
    const writer = await owner.connect();
    const mover = await owner.connect();
    try {
      // The check reads the rider's 3PL before the move commits, and commits after it.
      await mover.query('BEGIN');
      await mover.query(`UPDATE riders SET company_id = CASE company_id WHEN 1 THEN 2 ELSE 1 END WHERE id = 7`);
      await writer.query('BEGIN');
      await writer.query(check(7, '2025-09-01 12:00+00'));
      await mover.query('COMMIT');
      await owner.query('SELECT kept_apply(1000)'); // the move, applied before the check is committed
      // Until the check's transaction ends, the rider's rows are checked again with each batch.
      expect((await owner.query('SELECT 1 FROM kept_moved_riders WHERE rider_id = 7')).rows).toHaveLength(1);
      await writer.query('COMMIT');
    } finally {
      writer.release();
      mover.release();
    }
    expect(await keptDrift(owner, KEPT)).toEqual(noDrift(KEPT));
    // Then once more, and no longer: no transaction of this database is left that read the old 3PL. A
    // transaction open in another database all along (as other suites' are) does not hold it back.
    const elsewhere = new pg.Client({ connectionString: process.env.TEST_ADMIN_URL });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      await eventually(
        async () => {
          await owner.query(`INSERT INTO kept_changes (kind, id) VALUES ('e', 1)`);
          await applyOnce();
          return (await owner.query('SELECT 1 FROM kept_moved_riders WHERE rider_id = 7')).rows.length === 0;
        },
        { ms: 10000, every: 100, what: 'the moved rider settled' },
      );
    } finally {
      await elsewhere.query('ROLLBACK');
      await elsewhere.end();
    }
    const { rows } = await owner.query(`SELECT count(*)::int AS n FROM patrol_checks WHERE rider_id = 7 AND company_id IS DISTINCT FROM
                                          (SELECT company_id FROM riders WHERE id = 7)`);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('a burst of moves settles at the pace of the moves after it, and while the log is empty', async () => {
    await owner.query('SELECT kept_apply_all()');
    const moved = async () => (await one<{ n: number }>('SELECT count(*)::int AS n FROM kept_moved_riders')).n;
    expect(await moved()).toBe(0);
    await owner.query('UPDATE riders SET company_id = CASE company_id WHEN 1 THEN 2 ELSE 1 END');
    expect(await applyOnce()).toBe(20);
    expect(await moved()).toBe(20);
    // A batch that moves nobody settles one rider; one that moves a rider, three (twice the moves, and one).
    await owner.query(`INSERT INTO kept_changes (kind, id) VALUES ('e', 1)`);
    expect(await applyOnce()).toBe(1);
    expect(await moved()).toBe(19);
    const waiting = async (id: number) => (await owner.query('SELECT 1 FROM kept_moved_riders WHERE rider_id = $1', [id])).rows.length;
    const before = 19 + 1 - (await waiting(1));
    await owner.query(`UPDATE riders SET company_id = CASE company_id WHEN 1 THEN 2 ELSE 1 END WHERE id = 1`);
    expect(await applyOnce()).toBe(1);
    expect(await moved()).toBe(before - 3);
    expect(await waiting(1)).toBe(1); // moved by this batch: it waits for a later one
    // The log empty: up to five a call, and the rows of each are checked once more (a key a racing
    // writer left stale, written here as the applier writes, without the triggers).
    const stale = (await one<{ id: number }>('SELECT rider_id::int AS id FROM kept_moved_riders WHERE rider_id <> 1 LIMIT 1')).id;
    const client = await owner.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL kept.applying = on`);
      await client.query('UPDATE assignments SET company_id = NULL WHERE rider_id = $1', [stale]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await logRows()).toBe(0);
    for (let left = await moved(); left > 0;) {
      expect(await applyOnce()).toBe(0);
      const now = await moved();
      expect(left - now).toBe(Math.min(5, left));
      left = now;
    }
    const { rows } = await owner.query(`SELECT count(*)::int AS n FROM assignments a JOIN riders r ON r.id = a.rider_id
                                         WHERE a.company_id IS DISTINCT FROM r.company_id`);
    expect(rows).toEqual([{ n: 0 }]);
    expect(await keptDrift(owner, KEPT)).toEqual(noDrift(KEPT));
  });
});

describe('uninstalling (db/uninstall-triggers.sql, docs/OPERATIONS.md)', () => {
  it('takes every trigger of the service out of the writers\u2019 tables, and a write then logs nothing', async () => {
    const triggers = `SELECT tgrelid::regclass::text AS relation, tgname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                       WHERE NOT tgisinternal AND tgrelid::regclass::text NOT LIKE 'kept%' AND tgrelid::regclass::text NOT LIKE 'rider_list%'
                       ORDER BY 1, 2`;
    expect((await owner.query(triggers)).rows.length).toBeGreaterThan(20);
    await owner.query(fs.readFileSync(path.join(projectRoot, 'db', 'uninstall-triggers.sql'), 'utf8'));
    expect((await owner.query(triggers)).rows).toEqual([]);
    await owner.query('SELECT kept_apply_all()');
    await owner.query(check(9, '2025-10-01 10:00+00'));
    await owner.query(`UPDATE riders SET company_id = 2, name = 'Moved' WHERE id = 9`);
    expect(await logRows()).toBe(0);
  });
});

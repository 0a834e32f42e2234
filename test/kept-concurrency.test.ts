// The systems that write the data, and the kept data's applier, at the same time (migration 018). A
// writer's statement only appends to kept_changes: it locks no kept row, so writers of single
// statements never wait for one another nor deadlock because of the service, whatever 3PL they write.
// The applier gives up on a writer's lock rather than wait for it (it is tried again), only one session
// applies at a time, and a TRUNCATE of a source table waits for a writer and succeeds. Writers commit,
// on a copy of the fixture that only this file and test/list-zone.test.ts use.
import pg from 'pg';
import request from 'supertest';
import { failureLine, toHttpError } from '../src/http/errors';
import { KeptApplier } from '../src/db/kept-applier';
import { createApp } from '../src/app';
import { testApp, type TestApp } from './support/app';
import { useDatabase } from './support/databases';
import { ATTENTION_KEPT, RIDER_PARTS_KEPT, keptDrift, noDrift, type Kept } from './support/rolled-back';
import { eventually } from './support/wait';

const KEPT: Kept[] = [
  ...ATTENTION_KEPT,
  ...RIDER_PARTS_KEPT,
  { table: 'rider_list_entries', view: 'rider_list_entry_docs' },
  { table: 'rider_list_blocks', view: 'rider_list_block_counts' },
  { table: 'patrol_check_questioners', view: 'patrol_check_questioner_docs', columns: 'check_id, doc::text' },
];

let url: string;
let monitor: pg.Client;
beforeAll(async () => {
  url = await useDatabase('committed');
  monitor = new pg.Client(url);
  await monitor.connect();
});
afterAll(() => monitor.end());

const pidOf = (client: pg.Client) => (client as unknown as { processID: number }).processID;

async function connected(n: number): Promise<pg.Client[]> {
  const clients = Array.from({ length: n }, () => new pg.Client(url));
  await Promise.all(clients.map((c) => c.connect()));
  return clients;
}

// Riders 101 and 107 are of 3PL 1, rider 102 of 3PL 2 in the fixture.
const check = (id: number, rider: number, at: string) =>
  `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
   VALUES (${id}, ${rider}, 1, '${at}', true, false, true)`;
const assign = (id: number, rider: number) =>
  `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
   VALUES (${id}, ${rider}, 10, 11, now(), 1, 0, 'assign')`;

describe('writers of single statements at once', () => {
  it('moving riders between two 3PLs both ways while items of those 3PLs are assigned and returned and checks written, with the applier running: no deadlock, no failure, every kept table right', async () => {
    const writers = await connected(6);
    const applier = new KeptApplier(url, { intervalMs: 5, log: () => undefined });
    applier.start();
    const failures: string[] = [];
    const run = (client: pg.Client, sql: string) =>
      client.query(sql).catch((error: Error & { code?: string }) => failures.push(`${error.code} ${error.message}`));
    try {
      for (let round = 0; round < 40; round++) {
        const [to101, to102] = round % 2 === 0 ? [2, 1] : [1, 2];
        const id = 40000 + round * 10;
        await Promise.all([
          // A→B and B→A at once: the old triggers locked the two 3PLs' rows in opposite orders.
          run(writers[0], `UPDATE riders SET company_id = ${to101} WHERE id = 101`),
          run(writers[1], `UPDATE riders SET company_id = ${to102} WHERE id = 102`),
          // Items of the same 3PLs: the old triggers added each to its 3PL's one row of counts.
          run(writers[2], assign(id, 107)),
          run(writers[3], `UPDATE assignments SET deleted_at = now() WHERE id = ${id - 10} AND ${round > 0}`),
          run(writers[4], check(id, 107, `2025-06-01 10:0${round % 10}+00`)),
          run(writers[5], assign(id + 1, 102)),
        ]);
      }
      expect(failures).toEqual([]);
    } finally {
      await applier.stop();
      await Promise.all(writers.map((w) => w.end()));
    }
    expect(applier.status.applied).toBeGreaterThan(0);
    expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
  });

  it.each([
    ['an item assigned', assign(41001, 101)],
    [
      'an item returned',
      `UPDATE assignments SET deleted_at = now() WHERE id = (SELECT min(id) FROM assignments WHERE rider_id = 101 AND deleted_at IS NULL)`,
    ],
    [
      'a check with its answers',
      `${check(41001, 101, '2025-06-02 10:00+00')}; INSERT INTO patrol_check_answers (check_id, position, question_id, answer) VALUES (41001, 1, 301, '"Yes"')`,
    ],
    ['a rider moved to another 3PL', 'UPDATE riders SET company_id = 3 WHERE id = 101'],
    ['a product renamed', `UPDATE products SET name = name || ' (new)' WHERE id = 10`],
  ])('%s locks no kept row and takes no advisory lock: only its own rows, and appends to kept_changes', async (_what, sql) => {
    const [writer] = await connected(1);
    try {
      await writer.query('BEGIN');
      await writer.query(sql);
      const { rows } = await monitor.query<{ relation: string; mode: string }>(
        `SELECT coalesce(c.relname, l.locktype) AS relation, l.mode FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation
          WHERE l.pid = $1 AND (l.locktype = 'advisory' OR c.relname ~ '^(kept_|rider_list_|patrol_check_questioners)')`,
        [pidOf(writer)],
      );
      // kept_log_state is only read (the log's bound, migration 029): a lock nothing the applier takes waits on.
      expect(rows.filter((r) => !r.relation.startsWith('kept_log_state'))).toEqual([
        { relation: 'kept_changes', mode: 'RowExclusiveLock' },
      ]);
      expect(rows.filter((r) => r.relation.startsWith('kept_log_state')).map((r) => r.mode)).toEqual(
        expect.arrayContaining(['AccessShareLock']),
      );
      expect(rows.filter((r) => r.relation.startsWith('kept_log_state') && r.mode !== 'AccessShareLock')).toEqual([]);
      const logged = await writer.query('SELECT count(*)::int AS n FROM kept_changes');
      expect(logged.rows[0].n).toBeGreaterThan(0);
      await writer.query('ROLLBACK');
    } finally {
      await writer.end();
    }
  });
});

describe('the applier', () => {
  it('puts right the 3PL of a check written while its rider moved to another one (read before the move committed)', async () => {
    const [writing, moving, applierSession] = await connected(3);
    try {
      await writing.query('BEGIN');
      await writing.query(check(42101, 102, '2025-06-06 10:00+00')); // reads rider 102's 3PL: 2
      await moving.query('UPDATE riders SET company_id = 3 WHERE id = 102'); // commits at once
      await applierSession.query('SELECT kept_apply_all()'); // the move, without the check it cannot see
      await writing.query('COMMIT');
      expect((await monitor.query('SELECT company_id FROM patrol_checks WHERE id = 42101')).rows[0].company_id).toBe('2');
      await applierSession.query('SELECT kept_apply_all()');
      expect((await monitor.query('SELECT company_id FROM patrol_checks WHERE id = 42101')).rows[0].company_id).toBe('3');
      expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
    } finally {
      await moving.query('UPDATE riders SET company_id = 2 WHERE id = 102');
      await applierSession.query('SELECT kept_apply_all()');
      await Promise.all([writing, moving, applierSession].map((c) => c.end()));
    }
  });

  it('gives up on a writer’s lock within a moment, leaves its batch in the log, and applies it once the writer is done', async () => {
    const [writer, other, applierSession] = await connected(3);
    try {
      // Another transaction gives rider 107 an item: its counts on riders must change.
      await other.query(assign(42001, 107));
      // A writer holds rider 107's row (HR renaming it) and keeps its transaction open.
      await writer.query('BEGIN');
      await writer.query(`UPDATE riders SET name = 'No Gear Yet' WHERE id = 107`);
      const started = Date.now();
      await expect(applierSession.query('SELECT kept_apply_all()')).rejects.toMatchObject({ code: '55P03' });
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await monitor.query('SELECT count(*)::int AS n FROM kept_changes')).rows[0].n).toBeGreaterThan(0);
      await writer.query('COMMIT');
      await applierSession.query('SELECT kept_apply_all()');
      expect((await monitor.query('SELECT active_items FROM riders WHERE id = 107')).rows[0].active_items).toBeGreaterThan(0);
      expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
    } finally {
      await Promise.all([writer, other, applierSession].map((c) => c.end()));
    }
  });

  it('backs off where it cannot apply (kept_apply() missing: a database not migrated), saying so without a line per tick', async () => {
    const logs: string[] = [];
    const applier = new KeptApplier(process.env.TEST_ADMIN_URL!, { intervalMs: 50, log: (m) => logs.push(m) });
    applier.start();
    try {
      await eventually(() => applier.status.lastError !== undefined, { what: 'the first failure' });
      expect(applier.status.lastError).toMatch(/kept_apply/);
      // Tries after 1 s, then 2 s: at 50 ms a tick it would have tried 50 times in 2.5 s.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(logs.length).toBeGreaterThanOrEqual(1);
      expect(logs.length).toBeLessThanOrEqual(3);
      expect(logs[0]).toMatch(/^kept data: kept_apply\(\) failed: .*kept_apply/);
    } finally {
      await applier.stop();
    }
  });

  it('runs in one session at a time: a second caller is told so at once (-1) and applies nothing', async () => {
    const [first, second, writer] = await connected(3);
    try {
      await writer.query(check(42002, 101, '2025-06-03 10:00+00'));
      await first.query('BEGIN');
      expect((await first.query('SELECT kept_apply(1000) AS taken')).rows[0].taken).toBeGreaterThan(0);
      expect((await second.query('SELECT kept_apply(1000) AS taken')).rows[0].taken).toBe(-1);
      await first.query('COMMIT');
      expect((await second.query('SELECT kept_apply(1000) AS taken')).rows[0].taken).toBe(0);
    } finally {
      await Promise.all([first, second, writer].map((c) => c.end()));
    }
  });

  it('applies in one process of many: a second applier applies nothing beside the first, and takes over when the first stops', async () => {
    const [writer] = await connected(1);
    const first = new KeptApplier(url, { intervalMs: 20, log: () => undefined });
    const second = new KeptApplier(url, { intervalMs: 20, log: () => undefined });
    try {
      first.start();
      await writer.query(check(42010, 107, '2025-06-05 10:00+00'));
      await eventually(() => first.status.applied > 0, { what: 'the first applier applying' });
      second.start();
      // Writes beside both: each applied by the first; the second only learns that another applies.
      for (let i = 1; i <= 5; i++) {
        await writer.query(check(42010 + i, 107, `2025-06-05 10:0${i}+00`));
        await eventually(
          async () => (await monitor.query('SELECT 1 FROM kept_check_gaps WHERE check_id = $1', [42010 + i])).rowCount === 1,
          {
            what: `check ${42010 + i} applied`,
          },
        );
      }
      await eventually(() => second.status.elsewhere, { what: 'the second applier told that another applies' });
      expect({ second: second.status.applied, first: first.status.elsewhere }).toEqual({ second: 0, first: false });
      // The first stops (its session ends): the second takes the lock within its second, and applies.
      await first.stop();
      await writer.query(check(42020, 107, '2025-06-05 11:00+00'));
      await eventually(() => second.status.applied > 0 && !second.status.elsewhere, { ms: 5000, what: 'the second applier taking over' });
      expect((await monitor.query('SELECT 1 FROM kept_check_gaps WHERE check_id = 42020')).rowCount).toBe(1);
    } finally {
      await first.stop();
      await second.stop();
      await writer.end();
    }
    expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
  });

  it('shows a committed write in the kept data within its interval, and says how far behind it is on /health/ready and in the metrics', async () => {
    const t = testApp('committed');
    const [writer] = await connected(1);
    const applier = new KeptApplier(url, { intervalMs: 100, log: () => undefined });
    const app = createApp({ pool: t.pool, config: t.config, log: () => undefined, keptApplier: applier.status });
    try {
      await writer.query(check(42003, 107, '2025-06-04 10:00+00'));
      const behind = (await request(app).get('/health/ready').expect(200)).body.kept;
      expect(behind.pending_changes).toBeGreaterThan(0);
      expect(behind.behind_ms).toBeGreaterThanOrEqual(0);
      applier.start();
      await eventually(async () => (await monitor.query('SELECT 1 FROM kept_check_gaps WHERE check_id = 42003')).rowCount === 1, {
        what: 'the check in kept_check_gaps',
      });
      expect(applier.status.caughtUpAt).toBeInstanceOf(Date);
      await eventually(async () => (await request(app).get('/health/ready')).body.kept?.pending_changes === 0, {
        what: 'no change pending',
      });
      expect((await request(app).get('/health/ready')).body.kept).toEqual({ pending_changes: 0, behind_ms: 0 });
      const metrics = (await request(app).get('/metrics').expect(200)).text;
      expect(metrics).toMatch(/^kept_changes_applied_total [1-9]\d*$/m);
      expect(metrics).toMatch(/^kept_data_behind_seconds 0$/m);
    } finally {
      await applier.stop();
      await writer.end();
      await t.close();
    }
  });
});

describe('a TRUNCATE of a source table', () => {
  it('waits for a writer in the middle of its transaction, then succeeds, and the kept data is rebuilt from it', async () => {
    const [writing, truncating] = await connected(2);
    try {
      await writing.query('BEGIN');
      await writing.query(check(43001, 101, '2025-06-05 10:00+00'));
      await truncating.query('BEGIN');
      const truncated = truncating.query('TRUNCATE patrol_checks CASCADE').then(
        () => 'truncated',
        (error: Error) => error.message,
      );
      await eventually(
        async () =>
          (await monitor.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pidOf(truncating)]))
            .rowCount === 1,
        { what: 'the TRUNCATE waiting for the writer' },
      );
      await writing.query('COMMIT');
      expect(await truncated).toBe('truncated');
      // Its own transaction sees the log's rebuild request, and rebuilds.
      expect(await keptDrift(truncating, KEPT)).toEqual(noDrift(KEPT));
      expect((await truncating.query('SELECT count(*)::int AS n FROM kept_check_gaps WHERE check_id IS NOT NULL')).rows[0].n).toBe(0);
      await truncating.query('ROLLBACK');
    } finally {
      await Promise.all([writing.end(), truncating.end()]);
    }
  });
});

describe('readers beside a TRUNCATE', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp('committed');
  });
  afterAll(() => t.close());

  it('answer once it ends: the truncating statement touches no kept table (no deadlock with a reader)', async () => {
    const [truncating, writing] = await connected(2);
    try {
      // A writer holds the assignments; the TRUNCATE waits for it; a reader of the rider list waits for
      // the TRUNCATE. The TRUNCATE's triggers only append to the change log, so nothing closes a cycle.
      await writing.query('BEGIN');
      await writing.query(assign(9808, 101));
      await truncating.query('BEGIN');
      const truncated = truncating.query('TRUNCATE assignments CASCADE');
      const waiting = async (pattern: string) =>
        (await monitor.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [pattern])).rowCount === 1;
      await eventually(() => waiting('TRUNCATE assignments%'), { what: 'the TRUNCATE waiting for the writer' });
      const read = request(t.app)
        .get('/v2/rider-equipment-list')
        .then((res) => res);
      await eventually(() => waiting('WITH blocks AS%'), { what: 'the reader waiting for the TRUNCATE' });
      await writing.query('ROLLBACK');
      await truncated;
      await truncating.query('ROLLBACK');
      const res = await read;
      expect({ status: res.status, logs: t.logs }).toEqual({ status: 200, logs: [] });
      expect(res.body[0].data.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([truncating.end(), writing.end()]);
    }
  });

  it('get a 503 to retry, logged in one line, when the database ends their statement in a conflict', () => {
    for (const [code, message] of [
      ['40P01', 'deadlock detected'],
      ['40001', 'could not serialize access due to concurrent update'],
      ['55P03', 'could not obtain lock on relation "assignments"'],
    ]) {
      const error = Object.assign(new Error(message), { code });
      const answer = toHttpError(error);
      expect({ code, status: answer.status, headers: answer.options.headers }).toEqual({
        code,
        status: 503,
        headers: { 'Retry-After': '1' },
      });
      expect(failureLine('id', 'GET', '/v2/riders', 503, error)).toBe(`[id] GET /v2/riders -> 503: ${code} ${message}`);
    }
  });
});

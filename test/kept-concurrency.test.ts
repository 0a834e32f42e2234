// The tables kept by triggers under writers at the same time, as the systems that own the data write
// it: a second transaction that changes what the same kept rows come from waits for the first, then
// succeeds, and every kept table equals its definition once both have committed (migration 017).
// Both transactions commit, on a copy of the fixture that only this file and test/list-zone.test.ts use.
import pg from 'pg';
import request from 'supertest';
import { failureLine, toHttpError } from '../src/http/errors';
import { testApp, type TestApp } from './support/app';
import { useDatabase } from './support/databases';
import { ATTENTION_KEPT, keptDrift, noDrift, type Kept } from './support/rolled-back';
import { eventually } from './support/wait';

const KEPT: Kept[] = [
  ...ATTENTION_KEPT,
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

// Riders 101 and 107 are both of 3PL 1 in the fixture: their kept rows per 3PL and quarter are shared.
const check = (id: number, rider: number, at: string) =>
  `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
   VALUES (${id}, ${rider}, 1, '${at}', true, false, true)`;
const exchange = (id: number, rider: number, at: string) => `
  INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at)
    VALUES (${id}, ${rider}, 10, 11, '${at}'::timestamptz - interval '30 days', (SELECT min(id) FROM app_users), 0, 'assign', '${at}'),
           (${id + 1}, ${rider}, 10, 11, '${at}', (SELECT min(id) FROM app_users), 0, 'exchange', NULL);
  INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
    VALUES (${id}, ${id}, ${id + 1}, '${at}', 'Lost item', 'Lost', (SELECT min(id) FROM app_users))`;
const answer = (check: number, position: number) =>
  `INSERT INTO patrol_check_answers (check_id, position, question_id, answer) VALUES (${check}, ${position}, (SELECT min(id) FROM questions), '"Yes"')`;

/**
 * `first` in a transaction left open, then `second` in another, which must wait for it; the first
 * commits, and the second's outcome (its error's message, or 'committed') is returned.
 */
async function oneAfterTheOther(first: string, second: string): Promise<string> {
  const [a, b] = [new pg.Client(url), new pg.Client(url)];
  await Promise.all([a.connect(), b.connect()]);
  try {
    await a.query('BEGIN');
    await a.query(first);
    await b.query('BEGIN');
    const outcome = b.query(second).then(
      () => 'committed',
      (error: Error) => error.message,
    );
    const pid = (b as unknown as { processID: number }).processID;
    await eventually(
      async () => (await monitor.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid])).rowCount === 1,
      { what: 'the second writer waiting for the first' },
    );
    await a.query('COMMIT');
    const result = await outcome;
    await b.query(result === 'committed' ? 'COMMIT' : 'ROLLBACK');
    return result;
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
}

describe('two writers of the same kept rows at once', () => {
  // Each: what the two transactions write, and why their kept rows are the same.
  const cases: Array<[string, string, string]> = [
    [
      'checks of two riders of one 3PL in one quarter of an hour (kept_check_quarters)',
      check(9801, 101, '2025-02-01 10:01+00'),
      check(9802, 107, '2025-02-01 10:07+00'),
    ],
    ['checks of one rider (kept_check_gaps)', check(9803, 101, '2025-02-02 10:00+00'), check(9804, 101, '2025-02-03 10:00+00')],
    [
      'exchanges of two riders of one 3PL in one quarter and day (kept_exchange_quarters, kept_exchange_days)',
      exchange(9811, 101, '2025-02-04 09:00+00'),
      exchange(9813, 107, '2025-02-04 09:05+00'),
    ],
    ['answers to one check (patrol_check_questioners)', answer(9001, 901), answer(9001, 902)],
    ['a rebuild of the kept attention data beside a check', check(9805, 101, '2025-02-05 10:00+00'), 'SELECT kept_attention_rebuild()'],
    ['a check beside a rebuild of the kept attention data', 'SELECT kept_attention_rebuild()', check(9806, 107, '2025-02-05 10:02+00')],
    [
      'a rebuild of the rider list entries beside an assignment',
      exchange(9815, 101, '2025-02-06 09:00+00'),
      'SELECT rider_list_entries_rebuild()',
    ],
    [
      'a rebuild of the rider list blocks beside a new rider given an item',
      `INSERT INTO riders (id, name, company_id, country_id) VALUES (9901, 'Rider Nine', 1, (SELECT min(id) FROM countries));
       INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
         VALUES (9901, 9901, 10, 11, '2025-02-06 09:00+00', (SELECT min(id) FROM app_users), 0, 'assign')`,
      'SELECT rider_list_blocks_rebuild()',
    ],
    ['a rebuild of the answers arrays beside an answer', answer(9001, 903), 'SELECT patrol_check_questioners_rebuild()'],
  ];

  // Past 256 advisory locks in one transaction (kept_lock's budget), the table is locked instead.
  cases.push([
    'checks in 300 quarters of an hour in one statement, then one in one of them (the table locked whole)',
    `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
     SELECT 20000 + n, 101, 1, timestamptz '2025-03-01 00:00+00' + n * interval '15 minutes', n % 2 = 0, true, true
       FROM generate_series(1, 300) n`,
    check(9807, 107, '2025-03-01 01:01+00'),
  ]);

  it.each(cases)('%s: the second waits, then commits, and every kept table equals its definition', async (_what, first, second) => {
    expect(await oneAfterTheOther(first, second)).toBe('committed');
    expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
  });

  it('holds at most 256 advisory locks in a transaction of many small writes, and keeps every table right', async () => {
    const writer = new pg.Client(url);
    await writer.connect();
    try {
      await writer.query('BEGIN');
      // 300 checks of one rider, each alone in its quarter of an hour: a rider's lock, then 300 quarters'.
      for (let n = 1; n <= 300; n++)
        await writer.query(
          `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
           VALUES ($1, 107, 1, timestamptz '2025-04-01 00:00+00' + $2 * interval '15 minutes', true, true, true)`,
          [30000 + n, n],
        );
      const pid = (writer as unknown as { processID: number }).processID;
      const { rows } = await monitor.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`, [pid]);
      expect(rows[0].n).toBeLessThanOrEqual(256);
      expect(rows[0].n).toBeGreaterThan(0);
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    expect(await keptDrift(monitor, KEPT)).toEqual(noDrift(KEPT));
  });
});

describe('readers beside a TRUNCATE', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp('committed');
  });
  afterAll(() => t.close());

  it('answer once it ends: the kept rows are emptied without waiting for them (no deadlock with a reader)', async () => {
    const [truncating, writing] = [new pg.Client(url), new pg.Client(url)];
    await Promise.all([truncating.connect(), writing.connect()]);
    try {
      // A writer holds kept rows; the TRUNCATE (its triggers rewrite the kept data) waits for it,
      // holding the assignments; a reader of the rider list waits for the assignments.
      await writing.query('BEGIN');
      await writing.query(check(9808, 101, '2025-02-07 10:00+00'));
      await truncating.query('BEGIN');
      const truncated = truncating.query('TRUNCATE assignments CASCADE');
      const waiting = async (pattern: string) =>
        (await monitor.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [pattern])).rowCount === 1;
      await eventually(() => waiting('TRUNCATE assignments%'), { what: 'the TRUNCATE waiting for the writer' });
      const read = request(t.app)
        .get('/v2/rider-equipment-list')
        .then((res) => res);
      await eventually(() => waiting('WITH blocks AS%'), { what: 'the reader waiting for the TRUNCATE' });
      // The writer ends: the TRUNCATE's triggers go on past the kept rows the reader holds (the database
      // would end one of the two after deadlock_timeout, 1 s, if they waited for each other).
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

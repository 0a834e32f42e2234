// Statements prepared once per connection (src/db/prepared.ts, DB_PREPARED_STATEMENTS): each connection
// names the first texts it runs, up to its limit, and runs the others unnamed; the answers are the
// same either way, and a limit of 0 prepares nothing.
import { Pool } from '../src/db/pool';
import { queryRows } from '../src/db/rows';

jest.setTimeout(30000);

const pools: Pool[] = [];
afterAll(() => Promise.all(pools.map((p) => p.end())));

/** A pool of one connection, so that every statement below runs on the same backend. */
function onePool(prepared: number): Pool {
  const pool = new Pool({ connectionString: process.env.TEST_ADMIN_URL!, max: 1, acquireTimeoutMs: 10000, prepared });
  pools.push(pool);
  return pool;
}

const texts = ['SELECT $1::int + 1 AS n', 'SELECT $1::int * 2 AS n', 'SELECT $1::int - 3 AS n'];

/** Runs each text with 10, then with 20, and returns the answers in order. */
async function runAll(pool: Pool): Promise<number[]> {
  const answers: number[] = [];
  for (const value of [10, 20])
    for (const text of texts) answers.push((await queryRows<{ n: number }>(pool, { text, values: [value] }))[0].n);
  return answers;
}

/** The statements the pool's one backend holds prepared, by text. */
async function preparedTexts(pool: Pool): Promise<string[]> {
  const rows = await queryRows<{ statement: string }>(pool, { text: 'SELECT statement FROM pg_prepared_statements ORDER BY prepare_time' });
  return rows.map((r) => r.statement);
}

it('names the first texts a connection runs, up to its limit, and runs the rest unnamed with the same answers', async () => {
  const pool = onePool(2);
  expect(await runAll(pool)).toEqual([11, 20, 7, 21, 40, 17]);
  // The third text found no room, nor did the catalogue query itself (a fourth text).
  expect(await preparedTexts(pool)).toEqual(texts.slice(0, 2));
});

it('prepares nothing when the limit is 0', async () => {
  const pool = onePool(0);
  expect(await runAll(pool)).toEqual([11, 20, 7, 21, 40, 17]);
  expect(await preparedTexts(pool)).toEqual([]);
});

it('keeps one prepared statement per text however often it runs, and a new connection starts empty', async () => {
  const pool = onePool(10);
  for (let i = 0; i < 8; i++) await runAll(pool); // past the five runs PostgreSQL plans with their values
  const kept = await preparedTexts(pool);
  expect(kept.slice(0, 3)).toEqual(texts);
  expect(new Set(kept).size).toBe(kept.length);
  // A connection released with an error is closed: the next one has prepared nothing yet.
  const client = await pool.acquire();
  client.release(new Error('discard this connection'));
  expect(await preparedTexts(pool)).toEqual(['SELECT statement FROM pg_prepared_statements ORDER BY prepare_time']);
});

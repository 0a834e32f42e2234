// The helper that runs one bounded statement for a request (src/db/rows.ts, every answer read at once):
// a client that leaves stops its statement in PostgreSQL, at once.
import { queryRows } from '../src/db/rows';
import { ClientGone } from '../src/db/pool';
import { testApp, type TestApp } from './support/app';
import { eventually } from './support/wait';

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

/** Backends of this test's pool still running a pg_sleep tagged with `tag`. */
async function sleeping(tag: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
    [`%${tag}%`],
  );
  return Number(rows[0].n);
}

test.each(['pool', 'adminPool'] as const)('a client that leaves mid-statement has it cancelled (%s)', async (pool) => {
  const tag = `cancel-${pool}-${process.pid}`;
  const controller = new AbortController();
  const result = queryRows(t[pool], { text: `SELECT pg_sleep(30), '${tag}'` }, controller.signal);
  result.catch(() => undefined);
  await eventually(async () => (await sleeping(tag)) === 1, { what: 'the statement running' });
  const started = Date.now();
  controller.abort();
  await expect(result).rejects.toBeInstanceOf(ClientGone);
  await eventually(async () => (await sleeping(tag)) === 0, { ms: 3000, what: 'the statement stopped' });
  expect(Date.now() - started).toBeLessThan(3000);
});

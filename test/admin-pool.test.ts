// The admin pages and reports run their statements on connections of their own (ADMIN_POOL_MAX):
// however slow they are, and however many run at once, the API's answers never wait for them.
import request from 'supertest';
import type { Pool } from '../src/db/pool';
import { poolSettles, serve, testApp, type TestApp } from './support/app';
import { eventually } from './support/wait';

const ADMIN_APP = 'rider-equipment-service/admin';
const SLOW_SECONDS = 2;
const SLOW_STATEMENT = 'SELECT pg_sleep($1)';

let t: TestApp;
let server: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  // An API pool as small as the admin one: without pools of their own, two slow pages would fill it.
  t = testApp('fixture', { ADMIN_POOL_MAX: '2', DB_POOL_MAX: '2', DB_ACQUIRE_TIMEOUT_MS: '20000' });
  slowDown(t.adminPool, SLOW_SECONDS);
  server = await serve(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/**
 * The test's hook: each connection the pool hands out first runs a statement of `seconds` in
 * PostgreSQL, so every admin page holds its connections that long, as a slow page at fleet size does.
 */
function slowDown(pool: Pool, seconds: number): void {
  const acquire = pool.acquire.bind(pool);
  pool.acquire = async (signal?: AbortSignal) => {
    const client = await acquire(signal);
    try {
      await client.query(SLOW_STATEMENT, [seconds]);
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return client;
  };
}

/** The admin pool's backends running the hook's slow statement now (other test files share the database). */
async function adminStatements(): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = $1 AND state = 'active' AND query = $2`,
    [ADMIN_APP, SLOW_STATEMENT],
  );
  return rows[0].n;
}

it('answers the API promptly, and never with a 503, while six slow admin pages run at once', async () => {
  const pages = [
    '/admin/checks/9001',
    '/admin/checks/9002',
    '/admin/search?q=a',
    '/admin/checks/9001',
    '/admin/search?q=e',
    '/admin/checks/9003',
  ];
  const started = Date.now();
  const admin = Promise.all(
    pages.map((page) => fetch(server.base + page).then(async (res) => ({ status: res.status, body: await res.text() }))),
  );
  await eventually(async () => (await adminStatements()) === 2, { what: 'two slow admin statements running' });

  const apiTimes: number[] = [];
  let busy = 0;
  // While the admin pages still hold their connections: ten API answers, one after the other.
  for (let i = 0; i < 10; i++) {
    const t0 = Date.now();
    const res = await request(server.base).get('/v2/assign-list?rider_id=101');
    apiTimes.push(Date.now() - t0);
    expect(res.status).toBe(200);
    expect(res.body.map((row: Record<string, unknown>) => row['Product Variation ID'])).toEqual([11, 21, 12]);
    busy = Math.max(busy, await adminStatements());
  }
  expect(busy).toBe(2); // the admin pages were still running throughout
  // Behind an admin statement, an answer would have waited for up to its 2 s.
  expect(Math.max(...apiTimes)).toBeLessThan(1000);

  // The admin pages wait for each other, within their two connections, and all answer.
  const answers = await admin;
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(answers[0].body).toContain('Patrol check 9001');
  expect(Date.now() - started).toBeGreaterThanOrEqual((SLOW_SECONDS * 1000 * pages.length) / 2 - 100);
  await poolSettles(t.adminPool);
  await poolSettles(t.pool);
}, 30000);

it('never runs more admin statements at once than ADMIN_POOL_MAX', async () => {
  let most = 0;
  const admin = Promise.all(['/admin/checks/9001', '/admin/checks/9002', '/admin/checks/9003'].map((page) => fetch(server.base + page)));
  let done = false;
  void admin.finally(() => (done = true));
  while (!done) {
    most = Math.max(most, await adminStatements());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect((await admin).map((res) => res.status)).toEqual([200, 200, 200]);
  expect(most).toBe(2);
  expect(t.adminPool.totalCount).toBeLessThanOrEqual(2);
}, 30000);

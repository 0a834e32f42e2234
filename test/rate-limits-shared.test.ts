// The rate limits count in PostgreSQL: two apps on one database (two processes, two instances) share
// every count, so a token's limit is its limit in all, within the documented overshoot, and no request
// waits for a statement on the primary.
import request from 'supertest';
import { createToken } from '../src/auth/tokens';
import { testAppWithAuth, type TestApp } from './support/app';
import { eventually } from './support/wait';

let one: TestApp;
let two: TestApp;
const FLUSH_MS = 20;
beforeAll(async () => {
  const env = {
    RATE_LIMIT_STORE: 'postgres',
    API_RATE_LIMIT_PER_MINUTE: '6',
    AUTH_FAILURES_PER_MINUTE: '1000',
    RATE_LIMIT_FLUSH_MS: String(FLUSH_MS),
  };
  one = await testAppWithAuth('fixture', env);
  two = await testAppWithAuth('fixture', env);
});
afterAll(async () => {
  await one.close();
  await two.close();
});

async function newToken(name: string): Promise<{ token: string; id: string }> {
  const made = await createToken(one.owner, { name: `${name}-${process.pid}` });
  await Promise.all([one.tokens!.refresh(), two.tokens!.refresh()]);
  return made;
}

const ask = (app: TestApp, token: string) => request(app.app).get('/v2/questioner?country_id=1').set('Authorization', `Bearer ${token}`);

/** The flushes of the shared counts that `spy`'s pool has begun so far (the statement that adds its hits and reads back the totals). */
function flushesOf(spy: jest.SpyInstance): Array<Promise<unknown>> {
  return spy.mock.calls.flatMap(([sql], i) => (typeof sql === 'string' && sql.includes('WITH sent') ? [spy.mock.results[i].value] : []));
}

/**
 * Resolves once `spy`'s pool has finished a flush begun after this call, instead of guessing how long a
 * flush takes on a loaded machine.
 */
async function nextFlush(spy: jest.SpyInstance): Promise<void> {
  const seen = flushesOf(spy).length;
  await eventually(() => flushesOf(spy).length > seen, { what: 'a flush of the shared counts' });
  await flushesOf(spy)[seen].catch(() => undefined);
}

const hitsOf = async (id: string) =>
  (await one.pool.query('SELECT hits FROM access.rate_limits WHERE key = $1', [`token-requests:token:${id}`])).rows;

describe('rate limits shared by every process', () => {
  it('gives a token its per-minute limit in all when its requests are spread over the processes', async () => {
    const { token, id } = await newToken('shared-limit');
    const spies = [jest.spyOn(one.pool, 'query'), jest.spyOn(two.pool, 'query')];
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const res = await ask(i % 2 ? two : one, token);
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        // Each process hears of the other's hits at its next flush: the next request waits until this
        // hit is in the shared row, then until each process that has counted the key read the row back
        // in a flush begun since (a loaded machine can make a flush longer than any fixed pause). A
        // process's first hit on a key reads its total then.
        await eventually(async () => (await hitsOf(id))[0]?.hits === i + 1, { what: `hit ${i + 1} in the shared row` });
        await Promise.all(spies.slice(0, i + 1).map(nextFlush));
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    // The count is one row, keyed by the token, on the primary.
    expect(await hitsOf(id)).toEqual([{ hits: 10 }]);
  });

  it('runs no statement on the primary per request: a burst is one read and a flush per interval', async () => {
    const { token, id } = await newToken('shared-limit-burst');
    const query = jest.spyOn(one.pool, 'query');
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 100 }, () => ask(one, token)));
      // Until the burst's hits are flushed to the shared row (an interval or two).
      await eventually(async () => (await hitsOf(id))[0]?.hits === 100, { ms: 3000, what: 'the 100 hits in the shared row' });
      const intervals = Math.ceil((Date.now() - started) / FLUSH_MS);
      const onTheCounts = query.mock.calls.filter(([sql]) => typeof sql === 'string' && sql.includes('access.rate_limits'));
      // One read of the key's total at its first hit, then at most one flush per interval, however many
      // requests (however slow a loaded machine makes the burst).
      expect(onTheCounts.length).toBeGreaterThanOrEqual(2);
      expect(onTheCounts.length).toBeLessThanOrEqual(1 + intervals + 1);
      expect(onTheCounts.length).toBeLessThan(100 / 2);
    } finally {
      query.mockRestore();
    }
  });

  it('overshoots a limit by at most what the other process admitted before a flush, and counts every hit', async () => {
    const { token, id } = await newToken('shared-limit-race');
    // Both processes at once, before either has flushed: each admits what it knew was left (6).
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => ask(one, token)),
      ...Array.from({ length: 10 }, () => ask(two, token)),
    ]);
    const admitted = answers.filter((res) => res.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(6);
    expect(admitted).toBeLessThanOrEqual(6 + 6); // limit + (processes - 1) x limit
    // Once both have flushed, each knows the total: both refuse.
    await eventually(async () => (await hitsOf(id))[0]?.hits === 20, { ms: 3000, what: 'both processes’ 20 hits in the shared row' });
    expect((await ask(one, token)).status).toBe(429);
    expect((await ask(two, token)).status).toBe(429);
    // Every hit is counted once both processes have flushed (later on a loaded machine).
    await eventually(async () => (await hitsOf(id))[0]?.hits === 22, { ms: 3000, what: 'all 22 hits in the shared row' });
  });
});

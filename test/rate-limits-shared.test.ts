// The rate limits count in PostgreSQL: two apps on one database (two processes, two instances) share
// every count, so a token's limit is its limit in all.
import request from 'supertest';
import { createToken } from '../src/auth/tokens';
import { testAppWithAuth, type TestApp } from './support/app';

let one: TestApp;
let two: TestApp;
let token: string;
let tokenId: string;
beforeAll(async () => {
  const env = { RATE_LIMIT_STORE: 'postgres', API_RATE_LIMIT_PER_MINUTE: '6', AUTH_FAILURES_PER_MINUTE: '1000' };
  one = await testAppWithAuth('fixture', env);
  ({ token, id: tokenId } = await createToken(one.pool, { name: `shared-limit-${process.pid}` }));
  await one.tokens!.refresh();
  two = await testAppWithAuth('fixture', env);
});
afterAll(async () => {
  await one.close();
  await two.close();
});

describe('rate limits shared by every process', () => {
  it('gives a token its per-minute limit in all, however its requests are spread', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await request((i % 2 ? two : one).app)
        .get('/v2/questioner?country_id=1')
        .set('Authorization', `Bearer ${token}`);
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    // The count is one row, keyed by the token, on the primary.
    const { rows } = await one.pool.query('SELECT hits FROM access.rate_limits WHERE key = $1', [`token-requests:token:${tokenId}`]);
    expect(rows).toEqual([{ hits: 10 }]);
  });
});

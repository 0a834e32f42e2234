// A token made while the service runs works on its first request; unknown tokens cost the database
// little: one lookup per token and NOT_FOUND_MS, at most LOOKUPS_PER_SECOND a second.
import request from 'supertest';
import { createToken, LOOKUPS_PER_SECOND, newToken, revokeToken } from '../src/auth/tokens';
import { testAppWithAuth, type TestApp } from './support/app';
import { expectProblem } from './support/expect';

let t: TestApp;
let lookups: () => number;
beforeAll(async () => {
  // Reloaded once an hour: every token below is newer than the cache.
  t = await testAppWithAuth('fixture', { AUTH_REFRESH_MS: '3600000', AUTH_FAILURES_PER_MINUTE: '100000' });
  const query = jest.spyOn(t.pool, 'query');
  lookups = () => query.mock.calls.filter(([sql]) => typeof sql === 'string' && sql.includes('token_sha256 = $1')).length;
});
afterAll(() => t.close());

const get = (token: string) => request(t.app).get('/v2/questioner').set('authorization', `Bearer ${token}`);

it('admits a token created after the last reload on its first request, without spending a failure', async () => {
  const { token } = await createToken(t.owner, { name: `lookup-${process.pid}` });
  const first = await get(token).expect(200);
  expect(first.headers['ratelimit']).toBeDefined();
  const before = lookups();
  // Known from then on: no second lookup.
  await get(token).expect(200);
  expect(lookups()).toBe(before);
});

it('refuses an unknown token with one lookup, then from memory', async () => {
  const unknown = newToken();
  const before = lookups();
  for (let i = 0; i < 5; i++) expectProblem(await get(unknown), 401);
  expect(lookups() - before).toBe(1);
});

it('refuses a revoked token that the cache has not seen', async () => {
  const name = `lookup-revoked-${process.pid}`;
  const { token } = await createToken(t.owner, { name });
  await revokeToken(t.owner, name);
  expectProblem(await get(token), 401);
});

it('bounds the lookups of a flood of different tokens', async () => {
  const before = lookups();
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 100 }, () => get(newToken())));
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  expect(new Set(answers.map((res) => res.status))).toEqual(new Set([401]));
  // LOOKUPS_PER_SECOND in each second of the clock that the 100 spanned (two when they straddle a turn).
  expect(lookups() - before).toBeLessThanOrEqual(seconds * LOOKUPS_PER_SECOND);
});

it('does not look up what is not a token', async () => {
  const before = lookups();
  expectProblem(await get('not-a-token'), 401);
  expect(lookups()).toBe(before);
});

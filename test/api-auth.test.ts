import request from 'supertest';
import { createToken, revokeToken } from '../src/auth/tokens';
import { testAppWithAuth, type TestApp } from './support/app';
import { expectProblem } from './support/expect';

let t: TestApp;
let token: string;
let scoped: string;
beforeAll(async () => {
  // No token reload during the tests (5 s by default): their lookup counts are exact.
  t = await testAppWithAuth('fixture', { AUTH_REFRESH_MS: '3600000' });
  token = (await createToken(t.owner, { name: `auth-test-${process.pid}` })).token;
  scoped = (await createToken(t.owner, { name: `auth-test-scoped-${process.pid}`, company: '100%_Express' })).token;
  await t.tokens!.refresh();
});
afterAll(() => t.close());

const get = (path: string, bearer?: string) => {
  const req = request(t.app).get(path);
  return bearer ? req.set('Authorization', `Bearer ${bearer}`) : req;
};

describe('API tokens', () => {
  it('answers 401 with a Bearer challenge when no token is sent', async () => {
    const res = await get('/v2/riders');
    const body = expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rider-equipment"');
    expect(body.detail).toMatch(/Authorization: Bearer/);
  });

  it('answers 401 invalid_token for an unknown token, and for a token in the URL instead of the header', async () => {
    const res = await get('/v2/riders', 'rev2_' + 'x'.repeat(43));
    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rider-equipment", error="invalid_token"');
    expectProblem(await get(`/v2/riders?access_token=${token}`), 401);
    expectProblem(await request(t.app).get('/v2/riders').set('Authorization', `Basic ${token}`), 401);
  });

  it('decides a missing token without a connection, and an unknown one with one lookup in all', async () => {
    const connect = jest.spyOn(t.pool, 'connect');
    const streamConnect = jest.spyOn(t.streamPool, 'connect');
    const query = jest.spyOn(t.pool, 'query');
    try {
      for (let i = 0; i < 5; i++) {
        expect((await get('/v2/patrollerchecks')).status).toBe(401);
        expect((await get('/v2/patrollerchecks', `rev2_${'y'.repeat(43)}`)).status).toBe(401);
      }
      // The unknown token's one lookup (a token made since the last reload would be found by it),
      // then refused from memory; the missing one never reaches the database.
      expect(query).toHaveBeenCalledTimes(1);
      expect(query.mock.calls[0][0]).toContain('token_sha256 = $1');
      expect(connect).toHaveBeenCalledTimes(1);
      expect(streamConnect).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
      streamConnect.mockRestore();
      query.mockRestore();
    }
  });

  it('admits a live token, and records when it was last used', async () => {
    const res = await get('/v2/patrollerchecks', token).expect(200);
    expect(res.body).toHaveLength(4);
    await t.tokens!.refresh();
    const { rows } = await t.pool.query('SELECT last_used_at FROM access.api_tokens WHERE name = $1', [`auth-test-${process.pid}`]);
    expect(rows[0].last_used_at).toBeInstanceOf(Date);
  });

  it('stores only the SHA-256 of a token, never the token', async () => {
    const { rows } = await t.pool.query("SELECT t::text AS row FROM access.api_tokens t WHERE name LIKE 'auth-test-%'");
    for (const { row } of rows) {
      expect(row).not.toContain(token.slice(5));
      expect(row).not.toContain(scoped.slice(5));
    }
  });

  it('refuses a revoked token and an expired one', async () => {
    const { token: doomed } = await createToken(t.owner, { name: `auth-test-revoked-${process.pid}` });
    const { token: expired, id } = await createToken(t.owner, { name: `auth-test-expired-${process.pid}`, expiresInDays: 1 });
    await t.tokens!.refresh();
    await get('/v2/questioner', doomed).expect(200);
    await get('/v2/questioner', expired).expect(200);
    expect(await revokeToken(t.owner, `auth-test-revoked-${process.pid}`)).toBe(1);
    await t.owner.query("UPDATE access.api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [id]);
    await t.tokens!.refresh();
    expectProblem(await get('/v2/questioner', doomed), 401);
    expectProblem(await get('/v2/questioner', expired), 401);
  });

  it('limits a token scoped to one 3PL to that company, whatever its filters say', async () => {
    const riders = await get('/v2/riders', scoped).expect(200);
    expect(riders.body.map((r: { 'Rider ID': number }) => r['Rider ID'])).toEqual([102]);
    expect((await get('/v2/assign-list?rider_id=101', scoped).expect(200)).body).toEqual([]);
    expect((await get('/v2/patrollerchecks', scoped).expect(200)).body.map((c: { ID: number }) => c.ID)).toEqual([9002]);
    expect((await get('/v2/product-returns', scoped).expect(200)).body).toHaveLength(1);
    expect((await get('/v2/product-exchanges', scoped).expect(200)).body).toEqual([]);
    const page = (await get('/v2/rider-equipment-list', scoped).expect(200)).body[0];
    expect(page).toMatchObject({ total: 1, last_page: 1 });
    expect(page.data.map((r: { rider_id: string }) => r.rider_id)).toEqual(['102']);
    // The questionnaire holds no rider data and is the same for everyone.
    expect((await get('/v2/questioner', scoped).expect(200)).body).toHaveLength(4);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a token passes its limit', async () => {
    const limited = await testAppWithAuth('fixture', { API_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const { token: own } = await createToken(limited.owner, { name: `auth-test-limit-${process.pid}` });
      await limited.tokens!.refresh();
      for (let i = 0; i < 3; i++) {
        await request(limited.app).get('/v2/questioner').set('Authorization', `Bearer ${own}`).expect(200);
      }
      const res = await request(limited.app).get('/v2/questioner').set('Authorization', `Bearer ${own}`);
      expectProblem(res, 429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Another token has its own allowance.
      await request(limited.app).get('/v2/questioner').set('Authorization', `Bearer ${token}`).expect(200);
    } finally {
      await limited.close();
    }
  });

  it('slows guessing: too many bad tokens from one address answer 429', async () => {
    const limited = await testAppWithAuth('fixture', { AUTH_FAILURES_PER_MINUTE: '2' });
    try {
      const bad = `rev2_${'z'.repeat(43)}`;
      for (let i = 0; i < 2; i++)
        expect((await request(limited.app).get('/v2/riders').set('Authorization', `Bearer ${bad}`)).status).toBe(401);
      const res = await request(limited.app).get('/v2/riders').set('Authorization', `Bearer ${bad}`);
      expectProblem(res, 429);
      expect(res.headers['retry-after']).toBeDefined();
      expectProblem(await request(limited.app).get('/v2/riders'), 429);
    } finally {
      await limited.close();
    }
  });

  it('never counts requests with a good token against that limit, however many run at once', async () => {
    const limited = await testAppWithAuth('fixture', { AUTH_FAILURES_PER_MINUTE: '2' });
    try {
      await limited.tokens!.refresh();
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => request(limited.app).get('/v2/questioner?country_id=1').set('Authorization', `Bearer ${token}`)),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(40).fill(200));
    } finally {
      await limited.close();
    }
  });
});

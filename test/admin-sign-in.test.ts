import request from 'supertest';
import { createSupervisor, disableSupervisor } from '../src/auth/supervisors';
import { createToken } from '../src/auth/tokens';
import { testAppWithAuth, type TestApp } from './support/app';
import { csrfToken } from './support/html';

let t: TestApp;
const username = `sup-${process.env.TEST_RUN_ID}`;
const password = 'correct horse battery';
beforeAll(async () => {
  t = await testAppWithAuth('fixture', { SIGN_IN_FAILURES_PER_15_MINUTES: '1000' });
  await createSupervisor(t.pool, { username, password });
});
afterAll(() => t.close());

const csrfOf = csrfToken;
const cookieOf = (res: request.Response) =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('rider_equipment.sid='));

/** Signs in with an agent that keeps cookies; returns the agent and the sign-in answer. */
async function signIn(app = t.app, user = username, pass = password, next = '/admin') {
  const agent = request.agent(app);
  const form = await agent.get(`/admin/sign-in?next=${encodeURIComponent(next)}`).expect(200);
  const res = await agent
    .post('/admin/sign-in')
    .type('form')
    .send({ _csrf: csrfOf(form.text), username: user, password: pass, next });
  return { agent, res, before: cookieOf(form) };
}

describe('supervisor sign-in', () => {
  it('sends a visitor without a session to the sign-in form, keeping where they were going', async () => {
    const res = await request(t.app).get('/admin/checks?rider_id=101');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/sign-in?next=%2Fadmin%2Fchecks%3Frider_id%3D101');
    const form = await request(t.app).get('/admin/sign-in?next=%2Fadmin%2Fchecks').expect(200);
    expect(form.text).toContain('<label for="username">Username</label>');
    expect(form.text).toContain('<label for="password">Password</label>');
    expect(form.text).toContain('value="/admin/checks"');
  });

  it('signs in with a new session id, an HttpOnly SameSite=Lax cookie, and goes on to the page asked for', async () => {
    const { agent, res, before } = await signIn(t.app, username, password, '/admin/checks');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/checks');
    const cookie = cookieOf(res)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP here; see the TLS test below
    expect(cookie.split(';')[0]).not.toBe(before?.split(';')[0]);
    await agent.get('/admin/checks').expect(200);
  });

  it('refuses a wrong password and an unknown user with the same message', async () => {
    for (const [user, pass] of [
      [username, 'wrong password!'],
      ['nobody-here', password],
    ]) {
      const { res } = await signIn(t.app, user, pass);
      expect(res.status).toBe(401);
      expect(res.text).toContain('Wrong username or password.');
      expect(cookieOf(res) ?? '').not.toMatch(/Max-Age=\d{4}/); // no signed-in session was set
    }
  });

  it('refuses a sign-in without the CSRF token of its form', async () => {
    const res = await request(t.app).post('/admin/sign-in').type('form').send({ username, password });
    expect(res.status).toBe(403);
    expect(res.text).toContain('The form had expired');
    const { agent } = await signIn();
    await agent.post('/admin/sign-out').type('form').send({ _csrf: 'forged' }).expect(403);
    await agent.get('/admin').expect(200); // still signed in
  });

  it('signs out: the session is gone', async () => {
    const { agent } = await signIn();
    const page = await agent.get('/admin').expect(200);
    const token = csrfOf(page.text);
    await agent.post('/admin/sign-out').type('form').send({ _csrf: token }).expect(303);
    expect((await agent.get('/admin')).status).toBe(303);
  });

  it('ends a session after the idle timeout, and after the absolute one even when active', async () => {
    const idle = await signIn();
    await t.pool.query("UPDATE access.sessions SET expire = now() - interval '1 second' WHERE sess->'supervisor'->>'username' = $1", [
      username,
    ]);
    expect((await idle.agent.get('/admin')).status).toBe(303);

    const old = await signIn();
    await t.pool.query(
      `UPDATE access.sessions SET sess = jsonb_set(sess::jsonb, '{signedInAt}', to_jsonb((extract(epoch FROM now()) - 13 * 3600) * 1000))::json
        WHERE sess->'supervisor'->>'username' = $1`,
      [username],
    );
    const res = await old.agent.get('/admin');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/ended=1/);
  });

  it('ends the sessions of a disabled supervisor at their next request', async () => {
    const other = `sup-disabled-${process.env.TEST_RUN_ID}`;
    await createSupervisor(t.pool, { username: other, password });
    const { agent } = await signIn(t.app, other);
    await agent.get('/admin').expect(200);
    await disableSupervisor(t.pool, other);
    expect((await agent.get('/admin')).status).toBe(303);
  });

  it('keeps tokens and sessions apart: a token never opens /admin, a session never opens /v2', async () => {
    const { token } = await createToken(t.pool, { name: `sign-in-test-${process.env.TEST_RUN_ID}` });
    await t.tokens!.refresh();
    expect((await request(t.app).get('/admin').set('Authorization', `Bearer ${token}`)).status).toBe(303);
    const { agent } = await signIn();
    expect((await agent.get('/v2/questioner')).status).toBe(401);
  });

  it('throttles failed sign-ins from one address', async () => {
    const strict = await testAppWithAuth('fixture', { SIGN_IN_FAILURES_PER_15_MINUTES: '2' });
    try {
      for (let i = 0; i < 2; i++) expect((await signIn(strict.app, username, 'bad password!')).res.status).toBe(401);
      const { res } = await signIn(strict.app, username, password);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.text).toContain('Too many failed sign-ins');
    } finally {
      await strict.close();
    }
  });

  it('marks the cookie Secure behind a TLS proxy (TRUST_PROXY=on)', async () => {
    const proxied = await testAppWithAuth('fixture', { TRUST_PROXY: 'on' });
    try {
      // The test speaks plain HTTP to the app, as the proxy would; a Secure cookie is passed on by hand.
      const form = await request(proxied.app).get('/admin/sign-in').set('X-Forwarded-Proto', 'https').expect(200);
      expect(cookieOf(form)).toMatch(/; Secure/);
      const res = await request(proxied.app)
        .post('/admin/sign-in')
        .set('X-Forwarded-Proto', 'https')
        .set('Cookie', cookieOf(form)!.split(';')[0])
        .type('form')
        .send({ _csrf: csrfOf(form.text), username, password, next: '/admin' });
      expect(res.status).toBe(303);
      expect(cookieOf(res)).toMatch(/; Secure/);
    } finally {
      await proxied.close();
    }
  });

  it('never sends a supervisor elsewhere after sign-in', async () => {
    for (const next of ['https://evil.example/admin', '//evil.example', '/v2/riders', '/admin\\..\\x']) {
      const { res } = await signIn(t.app, username, password, next);
      expect(res.headers.location).toBe('/admin');
    }
  });
});

// Supervisors' sign-in to the admin pages (src/auth): the session cookie and its timeouts, the form
// token, what visitors store (nothing), and the sign-in's errors. Failed sign-ins counted per account
// and per address, and a client that hangs up: test/admin-sign-in-throttle.test.ts.
import type { Request, Response } from 'express';
import request from 'supertest';
import { signInCsrf } from '../src/auth/sign-in-csrf';
import { createSupervisor, disableSupervisor } from '../src/auth/supervisors';
import { createToken } from '../src/auth/tokens';
import { HttpError } from '../src/http/errors';
import { testAppWithAuth, type TestApp } from './support/app';
import { one, textOf } from './support/html';
import { cookieOf, csrfOf, formCookieOf, password } from './support/sign-in';

let t: TestApp;
const username = `sup-${process.env.TEST_RUN_ID}`;
beforeAll(async () => {
  t = await testAppWithAuth('fixture', { SIGN_IN_FAILURES_PER_15_MINUTES: '1000' });
  await createSupervisor(t.owner, { username, password });
});
afterAll(() => t.close());

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

  it('signs in with an HttpOnly SameSite=Lax session cookie, and goes on to the page asked for', async () => {
    const { agent, res, before } = await signIn(t.app, username, password, '/admin/checks');
    expect(before).toBeUndefined(); // the form gave no session
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/checks');
    const cookie = cookieOf(res)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP here; see the TLS test below
    expect(formCookieOf(res)).toMatch(/^rider_equipment\.sign_in=;.*Expires=Thu, 01 Jan 1970/); // the form's token is dropped
    await agent.get('/admin/checks').expect(200);
  });

  it('gives a new session id at sign-in, so an id known before it is worth nothing after', async () => {
    const { agent, res } = await signIn();
    const first = cookieOf(res)!.split(';')[0];
    const form = await agent.get('/admin/sign-in').expect(200);
    const again = await agent
      .post('/admin/sign-in')
      .type('form')
      .send({ _csrf: csrfOf(form.text), username, password, next: '/admin' });
    expect(again.status).toBe(303);
    const second = cookieOf(again)!.split(';')[0];
    expect(second).not.toBe(first);
    expect((await request(t.app).get('/admin').set('Cookie', first)).status).toBe(303);
    await request(t.app).get('/admin').set('Cookie', second).expect(200);
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
    const out = await agent.post('/admin/sign-out').type('form').send({ _csrf: token }).expect(303);
    // The sign-in page says so.
    expect(out.headers.location).toBe('/admin/sign-in?signed_out=1');
    expect((await agent.get(out.headers.location).expect(200)).text).toContain('<p class="notice" role="status">You are signed out.</p>');
    expect((await agent.get('/admin')).status).toBe(303);
  });

  it('ends a session after the idle timeout, and after the absolute one even when active', async () => {
    const idle = await signIn();
    await t.owner.query("UPDATE access.sessions SET expire = now() - interval '1 second' WHERE sess->'supervisor'->>'username' = $1", [
      username,
    ]);
    expect((await idle.agent.get('/admin')).status).toBe(303);

    const old = await signIn();
    await t.owner.query(
      `UPDATE access.sessions SET sess = jsonb_set(sess::jsonb, '{signedInAt}', to_jsonb((extract(epoch FROM now()) - 13 * 3600) * 1000))::json
        WHERE sess->'supervisor'->>'username' = $1`,
      [username],
    );
    const res = await old.agent.get('/admin');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/ended=1/);
  });

  it('restarts the idle timer at most once a tenth of the idle timeout (a minute at most): pages in between write nothing', async () => {
    const user = `sup-touch-${process.env.TEST_RUN_ID}`;
    await createSupervisor(t.owner, { username: user, password });
    const { agent } = await signIn(t.app, user);
    const stored = async () =>
      (
        await t.pool.query<{ expire: Date }>("SELECT expire FROM access.sessions WHERE sess->'supervisor'->>'username' = $1", [user])
      ).rows.map((r) => r.expire.getTime());
    const now = Date.now();
    /** A page seen `seconds` after the first (the session's expiry is stored in whole seconds). */
    const pageAfter = async (seconds: number) => {
      const clock = jest.spyOn(Date, 'now').mockImplementation(() => now + seconds * 1000);
      try {
        await agent.get('/admin/checks').expect(200);
      } finally {
        clock.mockRestore();
      }
    };
    await pageAfter(0); // the first page restarts the timer
    const [first] = await stored();
    for (const seconds of [5, 20, 59]) await pageAfter(seconds);
    expect(await stored()).toEqual([first]); // no write for the pages within the minute
    await pageAfter(61);
    expect(await stored()).toEqual([first + 61000]); // a minute on, the page wrote the new expiry
  });

  it('ends the sessions of a disabled supervisor at their next request', async () => {
    const other = `sup-disabled-${process.env.TEST_RUN_ID}`;
    await createSupervisor(t.owner, { username: other, password });
    const { agent } = await signIn(t.app, other);
    await agent.get('/admin').expect(200);
    await disableSupervisor(t.owner, other);
    expect((await agent.get('/admin')).status).toBe(303);
  });

  it('keeps tokens and sessions apart: a token never opens /admin, a session never opens /v2', async () => {
    const { token } = await createToken(t.owner, { name: `sign-in-test-${process.env.TEST_RUN_ID}` });
    await t.tokens!.refresh();
    expect((await request(t.app).get('/admin').set('Authorization', `Bearer ${token}`)).status).toBe(303);
    const { agent } = await signIn();
    expect((await agent.get('/v2/questioner')).status).toBe(401);
  });

  it('throttles failed sign-ins to one account from one address', async () => {
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

  it('marks the cookies Secure behind a TLS proxy (TRUST_PROXY=on)', async () => {
    const proxied = await testAppWithAuth('fixture', { TRUST_PROXY: 'on' });
    try {
      // The test speaks plain HTTP to the app, as the proxy would; a Secure cookie is passed on by hand.
      const form = await request(proxied.app).get('/admin/sign-in').set('X-Forwarded-Proto', 'https').expect(200);
      expect(formCookieOf(form)).toMatch(/; Secure/);
      const res = await request(proxied.app)
        .post('/admin/sign-in')
        .set('X-Forwarded-Proto', 'https')
        .set('Cookie', formCookieOf(form)!.split(';')[0])
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

describe('visitors store nothing', () => {
  const anonymousRows = async () =>
    Number((await t.pool.query("SELECT count(*) FROM access.sessions WHERE sess->'supervisor' IS NULL")).rows[0].count);
  const rowsOf = async (user: string) =>
    Number((await t.pool.query("SELECT count(*) FROM access.sessions WHERE sess->'supervisor'->>'username' = $1", [user])).rows[0].count);

  it('100 views of the sign-in page add no session row and set no session cookie', async () => {
    const before = await anonymousRows();
    for (let i = 0; i < 100; i++) {
      const res = await request(t.app).get('/admin/sign-in').expect(200);
      expect(cookieOf(res)).toBeUndefined();
    }
    expect((await anonymousRows()) - before).toBe(0);
  });

  it('nor do failed or forged sign-ins; a sign-in stores one row, its own', async () => {
    const before = await anonymousRows();
    expect((await signIn(t.app, username, 'wrong password!')).res.status).toBe(401);
    await request(t.app).post('/admin/sign-in').type('form').send({ username, password }).expect(403);
    expect((await anonymousRows()) - before).toBe(0);

    const user = `sup-rows-${process.env.TEST_RUN_ID}`;
    await createSupervisor(t.owner, { username: user, password });
    const { agent, res } = await signIn(t.app, user);
    expect(res.status).toBe(303);
    expect(await rowsOf(user)).toBe(1);
    await agent.get('/admin').expect(200);
  });

  it('keeps the form token in an HttpOnly SameSite=Strict cookie of the sign-in address, reused while good', async () => {
    const agent = request.agent(t.app);
    const first = await agent.get('/admin/sign-in').expect(200);
    const cookie = formCookieOf(first)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/admin\/sign-in/);
    expect(cookie).not.toMatch(/Secure/);
    expect(cookie.split(';')[0]).toBe(`rider_equipment.sign_in=${csrfOf(first.text)}`);
    // A second tab draws the same token, so both forms work.
    const second = await agent.get('/admin/sign-in').expect(200);
    expect(csrfOf(second.text)).toBe(csrfOf(first.text));
  });

  it('refuses a missing, forged or borrowed form token with 403', async () => {
    const agent = request.agent(t.app);
    const own = csrfOf((await agent.get('/admin/sign-in').expect(200)).text);
    const others = csrfOf((await request(t.app).get('/admin/sign-in').expect(200)).text);
    const [issued, random] = own.split('.');
    const forged = `${issued}.${random}.${'A'.repeat(43)}`;
    for (const _csrf of [undefined, '', 'forged', others, forged]) {
      const res = await agent.post('/admin/sign-in').type('form').send({ _csrf, username, password });
      expect(res.status).toBe(403);
      expect(res.text).toContain('The form had expired');
    }
    // A forged token sent as both the cookie and the field is refused as well: only ours are taken.
    const res = await request(t.app)
      .post('/admin/sign-in')
      .set('Cookie', `rider_equipment.sign_in=${forged}`)
      .type('form')
      .send({ _csrf: forged, username, password });
    expect(res.status).toBe(403);
    // And the right one still signs in.
    await agent.post('/admin/sign-in').type('form').send({ _csrf: own, username, password }).expect(303);
  });

  it('takes a form token for two hours', () => {
    const csrf = signInCsrf('a secret', '/admin/sign-in');
    const cookies: string[] = [];
    const res = { cookie: (_name: string, value: string) => cookies.push(value) } as unknown as Response;
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      const token = csrf.token({ headers: {}, secure: false } as Request, res);
      expect(cookies).toEqual([token]);
      const posted = { headers: { cookie: `other=1; rider_equipment.sign_in=${token}` }, body: { _csrf: token } } as unknown as Request;
      clock.mockReturnValue(now + 2 * 3600000 - 1000);
      expect(csrf.valid(posted)).toBe(true);
      expect(signInCsrf('another secret', '/admin/sign-in').valid(posted)).toBe(false);
      clock.mockReturnValue(now + 2 * 3600000 + 1000);
      expect(csrf.valid(posted)).toBe(false);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('sign-in errors', () => {
  it('answers a form too large with the admin HTML page titled Content Too Large', async () => {
    const res = await request(t.app)
      .post('/admin/sign-in')
      .type('form')
      .send(`username=${'x'.repeat(70000)}&password=y`);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(textOf(one(res.text, 'h1'))).toBe('Content Too Large');
    expect(res.text).toContain('larger than a sign-in can be');
  });

  it('names 413 and 431 in every error', () => {
    expect(new HttpError(413, 'x').title).toBe('Content Too Large');
    expect(new HttpError(431, 'x').title).toBe('Request Header Fields Too Large');
  });
});

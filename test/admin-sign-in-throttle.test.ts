// Failed sign-ins to the admin pages counted per account (in memory and in PostgreSQL) and per address
// (an office behind one address, its browsers known by a cookie), and a sign-in whose client hangs up,
// which is not counted as a failure.
import http from 'node:http';
import request from 'supertest';
import { createSupervisor } from '../src/auth/supervisors';
import { servedApp, testApp, testAppWithAuth, type TestApp } from './support/app';
import { cookieNamed, csrfOf, formCookieOf, password } from './support/sign-in';

// The supervisors' rows go through the fixture's owner.
let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

describe('failed sign-ins per account', () => {
  // Behind a proxy on this machine (TRUST_PROXY=loopback), X-Forwarded-For is each guesser's address.
  describe.each(['memory', 'postgres'])('counted in %s', (store) => {
    let proxied: TestApp;
    const target = `sup-target-${store}-${process.env.TEST_RUN_ID}`;
    const bystander = `sup-bystander-${store}-${process.env.TEST_RUN_ID}`;
    beforeAll(async () => {
      proxied = await testAppWithAuth('fixture', {
        TRUST_PROXY: 'loopback',
        RATE_LIMIT_STORE: store,
        // Two per address: were the forwarded addresses not believed, the third failure would be a 429.
        SIGN_IN_FAILURES_PER_15_MINUTES: '2',
        SIGN_IN_ACCOUNT_FAILURES_PER_5_MINUTES: '3',
      });
      await createSupervisor(t.owner, { username: target, password });
      await createSupervisor(t.owner, { username: bystander, password });
    });
    afterAll(() => proxied.close());

    const attempt = async (from: string, user: string, pass: string) => {
      const agent = request.agent(proxied.app);
      const form = await agent.get('/admin/sign-in').set('X-Forwarded-For', from).expect(200);
      return agent
        .post('/admin/sign-in')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ _csrf: csrfOf(form.text), username: user, password: pass, next: '/admin' });
    };

    it('throttles one account guessed from many addresses, and no other account', async () => {
      for (let i = 1; i <= 3; i++) expect((await attempt(`203.0.113.${i}`, target, 'bad password!')).status).toBe(401);
      const locked = await attempt('203.0.113.4', target, password);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(300);
      expect(locked.text).toContain('Too many failed sign-ins');
      // The same address, and the guessers', still sign in to another account.
      expect((await attempt('203.0.113.4', bystander, password)).status).toBe(303);
      expect((await attempt('203.0.113.1', bystander, password)).status).toBe(303);
    });

    it('counts a name nobody has the same way, so the answer tells nothing of who exists', async () => {
      const nobody = `nobody-${store}-${process.env.TEST_RUN_ID}`;
      for (let i = 1; i <= 3; i++) expect((await attempt(`198.51.100.${i}`, nobody, 'bad password!')).status).toBe(401);
      expect((await attempt('198.51.100.9', nobody, 'bad password!')).status).toBe(429);
    });
  });
});

describe('an office behind one address', () => {
  // Every supervisor of the office comes from one address (a shared NAT, or a proxy without TRUST_PROXY).
  let office: TestApp;
  const [guessed, colleague, sprayed] = ['guessed', 'colleague', 'sprayed'].map((who) => `office-${who}-${process.env.TEST_RUN_ID}`);
  beforeAll(async () => {
    office = await testAppWithAuth('fixture', {
      SIGN_IN_FAILURES_PER_15_MINUTES: '2',
      SIGN_IN_ADDRESS_FAILURES_PER_15_MINUTES: '5',
      SIGN_IN_ACCOUNT_FAILURES_PER_5_MINUTES: '1000',
    });
    for (const user of [guessed, colleague]) await createSupervisor(t.owner, { username: user, password });
  });
  afterAll(() => office.close());

  /** A sign-in from `agent` (a browser, with its cookies), or from a new browser. */
  const attempt = async (user: string, pass: string, agent = request.agent(office.app)) => {
    const form = await agent.get('/admin/sign-in').expect(200);
    return agent
      .post('/admin/sign-in')
      .type('form')
      .send({ _csrf: csrfOf(form.text), username: user, password: pass, next: '/admin' });
  };

  it('keeps out only the account guessed at, then only new browsers; a colleague who signed in here before still signs in', async () => {
    // The colleague's browser has signed in here before.
    const colleagueBrowser = request.agent(office.app);
    expect((await attempt(colleague, password, colleagueBrowser)).status).toBe(303);
    expect(cookieNamed(await attempt(colleague, password, colleagueBrowser), 'rider_equipment.known')).toMatch(/HttpOnly/);
    // A guesser at the same address: two failures keep that one account out, from here, whatever the password.
    for (let i = 0; i < 2; i++) expect((await attempt(guessed, 'bad password!')).status).toBe(401);
    expect((await attempt(guessed, password)).status).toBe(429);
    // Not the others: a colleague in a new browser signs in.
    expect((await attempt(colleague, password)).status).toBe(303);
    // The guesser goes on across accounts: past five failures from the address, new browsers wait...
    for (let i = 0; i < 3; i++) expect((await attempt(`${sprayed}-${i}`, 'bad password!')).status).toBe(401);
    const locked = await attempt(colleague, password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // ...but the browser the colleague signed in from before does not, for that account only.
    expect((await attempt(colleague, password, colleagueBrowser)).status).toBe(303);
    expect((await attempt(guessed, password, colleagueBrowser)).status).toBe(429);
  });

  it('takes only a browser cookie it signed itself, for the account it names', async () => {
    const form = await request(office.app).get('/admin/sign-in').expect(200);
    const name = Buffer.from(colleague).toString('base64url');
    const forged = (await request(office.app)
      .post('/admin/sign-in')
      .set('Cookie', [formCookieOf(form)!.split(';')[0], `rider_equipment.known=${name}.${'A'.repeat(43)}`].join('; '))
      .type('form')
      .send({ _csrf: csrfOf(form.text), username: colleague, password, next: '/admin' })) as request.Response;
    // The address is past its failures (the test above): a forged cookie is a new browser.
    expect(forged.status).toBe(429);
  });
});

describe('a sign-in whose client hangs up on its answer', () => {
  it('is not counted as a failure: a supervisor who closes the tab at once is never held back', async () => {
    const strict = await testAppWithAuth('fixture', { SIGN_IN_FAILURES_PER_15_MINUTES: '2', SIGN_IN_ACCOUNT_FAILURES_PER_5_MINUTES: '2' });
    const user = `hangs-up-${process.env.TEST_RUN_ID}`;
    await createSupervisor(strict.owner, { username: user, password });
    await servedApp(strict, async ({ base }) => {
      /** A sign-in whose client reads the status line and hangs up; resolves with that status. */
      const signInAndHangUp = async () => {
        const form = await fetch(`${base}/admin/sign-in`);
        const cookie = form.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
        const body = new URLSearchParams({ _csrf: csrfOf(await form.text()), username: user, password, next: '/admin' }).toString();
        return new Promise<number>((resolve, reject) => {
          const req = http.request(`${base}/admin/sign-in`, {
            method: 'POST',
            agent: false,
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
          });
          req.on('response', (res) => {
            res.socket.destroy();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end(body);
        });
      };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await signInAndHangUp());
      expect(statuses).toEqual([303, 303, 303, 303, 303, 303]);
    });
  });
});

import pg from 'pg';
import request from 'supertest';
import { allOperations } from '../src/api/v2/operations';
import { createSupervisor } from '../src/auth/supervisors';
import { testApp, testAppWithAuth, type TestApp } from './support/app';
import { addAttentionRows, signIn } from './support/attention-scenario';
import { testDatabases, useDatabase } from './support/databases';
import { csrfToken } from './support/html';
import { eventually } from './support/wait';

// Input from anyone never makes a 500: each of these answered 500 with a stack in the log before.
// And a primary that refuses changes (read-only, out of space) gives whole pages or a 503 saying so.

/** Every name an object has from Object.prototype: `constructor`, `toString`, `__proto__`, … */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

let t: TestApp;
let api: TestApp;
beforeAll(async () => {
  t = await testAppWithAuth('fixture', { AUTH: 'on' });
  api = testApp('fixture');
});
afterAll(async () => Promise.all([t.close(), api.close()]));

describe('no input makes a 500', () => {
  it('a sign-in whose CSRF token has as many characters as the cookie but other bytes: the form again, 403', async () => {
    const res = await request(t.app)
      .post('/admin/sign-in')
      .set('Cookie', 'rider_equipment.sign_in=a')
      .type('form')
      .send('_csrf=%C3%A9&username=x&password=y');
    expect(res.status).toBe(403);
    expect(res.text).toContain('The form had expired');
  });

  it.each(PROTOTYPE_NAMES)('a parameter named %s on every /v2 operation: 400 naming it', async (name) => {
    for (const op of allOperations) {
      const path = `/v2${op.path.replace(/\{[^}]+\}/g, '1')}`;
      const res = await request(api.app)
        .get(path)
        .query(`${encodeURIComponent(name)}=1`);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.detail).toContain(name);
    }
  });

  it('a parameter named like an object’s own property on an admin list and Needs attention: the form, 400', async () => {
    for (const name of PROTOTYPE_NAMES) {
      for (const path of ['/admin/checks', '/admin/equipment/assignments', '/admin/attention', '/admin/attention/unchecked']) {
        const res = await request(api.app)
          .get(path)
          .query(`${encodeURIComponent(name)}=1`);
        expect({ path, name, status: res.status }).toEqual({ path, name, status: 400 });
      }
    }
  });

  it('a NUL, or any name no account can have, in the sign-in’s username: wrong username or password, 401', async () => {
    for (const username of ['lead\u0000', '\u0000', 'x'.repeat(65), 'ǅ', 'lead a']) {
      const agent = request.agent(t.app);
      const form = await agent.get('/admin/sign-in').expect(200);
      const res = await agent
        .post('/admin/sign-in')
        .type('form')
        .send({ _csrf: csrfToken(form.text), username, password: 'whatever-it-is' });
      expect({ username, status: res.status }).toEqual({ username, status: 401 });
    }
  });
});

describe('no input to an admin form makes a 500', () => {
  const PASSWORD = 'form-input-password';
  let app: TestApp;
  beforeAll(async () => {
    await useDatabase('readOnly');
    app = await testAppWithAuth('readOnly', { NOTES_PER_MINUTE: '100000' });
    await createSupervisor(app.owner, { username: 'fi-lead', password: PASSWORD });
  });
  afterAll(() => app.close());

  const forms = [
    '/admin/attention/unchecked/handled',
    '/admin/attention/unchecked/batch',
    '/admin/attention/unchecked/assign',
    '/admin/attention/handled/1/undo',
    '/admin/attention/batches/1/undo',
  ];
  /** Each form's fields as its page sends them (a row of rider 107, given to this supervisor). */
  const fields = {
    subject: '107',
    subjects: '107',
    which: 'ticked',
    note: 'called',
    until: '',
    back: '/admin/attention',
    assignee: 'fi-lead',
  };

  it('a NUL in any field of each form: never a 500; a NUL in the name a batch is given to, a 400 saying so', async () => {
    const agent = await signIn(app, 'fi-lead', PASSWORD);
    const token = csrfToken((await agent.get('/admin/attention').expect(200)).text);
    for (const path of forms) {
      for (const field of Object.keys(fields)) {
        const res = await agent
          .post(path)
          .type('form')
          .send({ ...fields, [field]: 'fi\u0000lead', _csrf: token });
        expect({ path, field, failed: res.status >= 500 }).toEqual({ path, field, failed: false });
      }
    }
    const given = await agent
      .post('/admin/attention/unchecked/assign')
      .type('form')
      .send({ ...fields, assignee: 'fi-\u0000lead', _csrf: token });
    expect(given.status).toBe(400);
    expect(given.text).toContain('assignee must not hold control characters');
  });

  it('a field or parameter named like an object’s own property on each form: never a 500', async () => {
    const agent = await signIn(app, 'fi-lead', PASSWORD);
    const token = csrfToken((await agent.get('/admin/attention').expect(200)).text);
    for (const path of forms) {
      for (const name of PROTOTYPE_NAMES) {
        const inBody = await agent
          .post(path)
          .type('form')
          .send(`${new URLSearchParams({ ...fields, _csrf: token }).toString()}&${encodeURIComponent(name)}=1`);
        const inQuery = await agent
          .post(`${path}?${encodeURIComponent(name)}=1`)
          .type('form')
          .send({ ...fields, _csrf: token });
        expect({ path, name, statuses: [inBody.status, inQuery.status].filter((status) => status >= 500) }).toEqual({
          path,
          name,
          statuses: [],
        });
      }
    }
  });
});

describe('a form posted from another site', () => {
  const PASSWORD = 'cross-site-password';
  let app: TestApp;
  beforeAll(async () => {
    await useDatabase('readOnly');
    app = await testAppWithAuth('readOnly');
    await createSupervisor(app.owner, { username: 'xs-lead', password: PASSWORD });
  });
  afterAll(() => app.close());

  it('is refused as a bad token, 403, on every admin form, with a valid token and session; this site’s own goes through', async () => {
    const agent = await signIn(app, 'xs-lead', PASSWORD);
    const token = csrfToken((await agent.get('/admin/attention').expect(200)).text);
    const forms = [
      '/admin/attention/unchecked/handled',
      '/admin/attention/unchecked/batch',
      '/admin/attention/unchecked/assign',
      '/admin/attention/handled/1/undo',
      '/admin/attention/batches/1/undo',
      '/admin/sign-out',
    ];
    const before = (await app.pool.query('SELECT count(*)::int AS n FROM access.attention_handled')).rows[0].n;
    for (const path of forms) {
      for (const [header, value] of [
        ['Origin', 'https://evil.example'],
        ['Sec-Fetch-Site', 'cross-site'],
        ['Referer', 'https://evil.example/page'],
      ]) {
        const res = await agent.post(path).set(header, value).type('form').send({ _csrf: token, subject: '107', note: 'x', rows: 'all' });
        expect({ path, header, value, status: res.status, page: res.type }).toEqual({
          path,
          header,
          value,
          status: 403,
          page: 'text/html',
        });
      }
    }
    expect((await app.pool.query('SELECT count(*)::int AS n FROM access.attention_handled')).rows[0].n).toBe(before);
    // The sign-in form too; and this site's own Origin is no obstacle.
    const other = request.agent(app.app);
    const form = csrfToken((await other.get('/admin/sign-in').expect(200)).text);
    const refused = await other
      .post('/admin/sign-in')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ _csrf: form, username: 'xs-lead', password: PASSWORD });
    expect(refused.status).toBe(403);
    const host = '127.0.0.1:4000';
    await other
      .post('/admin/sign-in')
      .set('Host', host)
      .set('Origin', `http://${host}`)
      .type('form')
      .send({ _csrf: form, username: 'xs-lead', password: PASSWORD })
      .expect(303);
  });
});

describe('notes within bounds', () => {
  const PASSWORD = 'bounded-notes-password';
  let app: TestApp;
  beforeAll(async () => {
    await useDatabase('readOnly');
    app = await testAppWithAuth('readOnly', { NOTES_PER_MINUTE: '3' });
    await createSupervisor(app.owner, { username: 'nb-lead', password: PASSWORD });
  });
  afterAll(() => app.close());

  it('a supervisor posts at most NOTES_PER_MINUTE forms a minute: past it a page with 429 and Retry-After', async () => {
    const agent = await signIn(app, 'nb-lead', PASSWORD);
    const token = csrfToken((await agent.get('/admin/attention').expect(200)).text);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await agent.post('/admin/attention/handled/999999/undo').type('form').send({ _csrf: token })).status);
    expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
    const refused = await agent.post('/admin/attention/handled/999999/undo').type('form').send({ _csrf: token });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.text).toContain('You have saved 3 forms in the last minute');
  });

  it('a rider page shows the newest 20 notes, and the older ones a page further', async () => {
    const [{ id: by }] = (await app.pool.query(`SELECT id FROM access.supervisors WHERE username = 'nb-lead'`)).rows;
    await app.owner.query(
      `INSERT INTO access.attention_handled (rule, subject_id, evidence_at, note, handled_by, undone_at, undone_by)
       SELECT 'unchecked', 101, now(), 'note ' || g, $1, now(), $1 FROM generate_series(1, 25) g`,
      [by],
    );
    const agent = await signIn(app, 'nb-lead', PASSWORD);
    const notes = (html: string) => [...html.matchAll(/class="handling-note">(note \d+)</g)].map((m) => m[1]);
    const first = (await agent.get('/admin/riders/101').expect(200)).text;
    expect(notes(first)).toHaveLength(20);
    expect(notes(first)[0]).toBe('note 25');
    const older = /href="(\/admin\/riders\/101\?notes_before=\d+)#history-title">Older notes/.exec(first)![1];
    const second = (await agent.get(older.replace(/&amp;/g, '&')).expect(200)).text;
    expect(notes(second)).toEqual(['note 5', 'note 4', 'note 3', 'note 2', 'note 1']);
    expect(second).toContain('Newest notes');
    expect(second).not.toContain('Older notes');
    await agent.get('/admin/riders/101?notes_before=abc').expect(400);
  });
});

describe('a primary that refuses changes', () => {
  const PASSWORD = 'read-only-password';
  let ro: TestApp;
  let admin: pg.Client;
  beforeAll(async () => {
    await useDatabase('readOnly');
    ro = await testAppWithAuth('readOnly');
    await createSupervisor(ro.owner, { username: 'ro-lead', password: PASSWORD });
    await addAttentionRows(ro); // rider 107, never checked and holding a helmet: a row to handle
    admin = new pg.Client(process.env.TEST_ADMIN_URL);
    await admin.connect();
  });
  afterAll(async () => {
    const name = testDatabases().readOnly;
    await admin.query(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await admin.end();
    await ro.close();
  });

  /** Makes the database refuse changes to every new session, and ends the pools' sessions so they reconnect. */
  async function refuseChanges(): Promise<void> {
    const name = testDatabases().readOnly;
    await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
    // Until each pool has seen its connections end (a request on one it still holds would be a 503 to retry).
    await eventually(() => ro.pool.totalCount === 0 && ro.adminPool.totalCount === 0);
  }

  it('serves whole pages to a signed-in supervisor, answers a note or a sign-in 503, and says so when asked if ready', async () => {
    const agent = await signIn(ro, 'ro-lead', PASSWORD);
    const queue = (await agent.get('/admin/attention').expect(200)).text;
    await refuseChanges();
    // Pages read on; each is whole although the session's idle timer cannot be restarted.
    for (const path of ['/admin', '/admin/attention', '/admin/checks']) {
      const res = await agent.get(path).catch((error) => {
        throw new Error(`${path}: ${error.message}; log: ${ro.logs.join('\n')}`);
      });
      expect({ path, status: res.status, whole: res.text.trimEnd().endsWith('</html>') }).toEqual({ path, status: 200, whole: true });
    }
    // A note cannot be written: a 503 page that says why, with Retry-After.
    const note = await agent
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(queue), subject: '107', note: 'called', until: '', back: '/admin/attention' });
    expect(note.status).toBe(503);
    expect(note.headers['retry-after']).toBe('30');
    expect(note.text).toContain('accepts no changes for now');
    // Nor can a sign-in, which stores a session.
    const other = request.agent(ro.app);
    const form = await other.get('/admin/sign-in').expect(200);
    const signingIn = await other
      .post('/admin/sign-in')
      .type('form')
      .send({ _csrf: csrfToken(form.text), username: 'ro-lead', password: PASSWORD });
    expect(signingIn.status).toBe(503);
    const ready = await request(ro.app).get('/health/ready').expect(200);
    expect(ready.body.databases[0]).toMatchObject({ name: 'primary', accepts_writes: false });
    // No line of the log is a stack.
    expect(ro.logs.filter((line) => /\n\s+at /.test(line))).toEqual([]);
  });
});

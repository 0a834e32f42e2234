// "Needs attention" as a work queue, one row's save and its note (src/admin/handling.ts): where the page
// opens after a save and when its notice is stored, notes as a person counts them, and a note saved
// after its session ended. On a copy of the fixture of its own, signed in for real, as of today
// (test/support/attention-handling.ts).
import http from 'node:http';
import request from 'supertest';
import { serve, type TestApp } from './support/app';
import { csrfToken, hiddenFields, one, parseHtml, textOf } from './support/html';
import { eventually } from './support/wait';
import { markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';
import { countHandled, handlingApp, password, section } from './support/attention-handling';

let t: TestApp;
let today: string;

beforeAll(async () => ({ t, today } = await handlingApp('handlingNotes')));
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
const handledCount = () => countHandled(t);

describe('after a Save', () => {
  it('the page opens at the row after the one handled: each row has an id, each form the key of the row after it', async () => {
    const a = await signIn('lead-b');
    const html = (await a.get('/admin/attention').expect(200)).text;
    const rows = parseHtml(html).querySelectorAll('section#unchecked table.list tbody tr');
    expect(rows.length).toBeGreaterThan(1);
    const keys = rows.map((row) => row.getAttribute('id'));
    expect(keys.every((key) => /^row-unchecked-\d+$/.test(key ?? ''))).toBe(true);
    expect(rows[0].querySelector('input[name="next"]')!.getAttribute('value')).toBe(keys[1]!.replace(/^row-/, ''));
    const subject = keys[0]!.replace(/^row-unchecked-/, '');
    const res = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(html), subject, note: 'Patrol booked', back: '/admin/attention', next: keys[1]!.replace(/^row-/, '') });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/admin/attention#${keys[1]}`);
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND rule = 'unchecked' AND subject_id = $1`,
      [subject],
    );
  });
  it('stores the session with its notice before the redirect leaves: a browser that follows it at once sees the notice', async () => {
    // A browser follows a 303 on its headers. Holding the session's row locked makes the save wait:
    // no header may leave while it waits, and the next page then finds the notice.
    const server = await serve(t.app);
    try {
      await noticeBeforeRedirect(server.base);
    } finally {
      await server.close();
    }
  });
});

/** The check of the test above, on the app served at `base`. */
async function noticeBeforeRedirect(base: string): Promise<void> {
  {
    const a = request.agent(base);
    const form = await a.get('/admin/sign-in').expect(200);
    await a
      .post('/admin/sign-in')
      .type('form')
      .send({ username: 'lead-b', password, _csrf: csrfToken(form.text), next: '/admin' })
      .expect(303);
    const html = (await a.get('/admin/attention').expect(200)).text;
    const subject = parseHtml(html)
      .querySelector('section#unchecked table.list tbody tr')!
      .getAttribute('id')!
      .replace(/^row-unchecked-/, '');
    const cookie = a.jar.getCookies({ domain: '127.0.0.1', path: '/admin', secure: false, script: false }).toValueString();
    const sid = /rider_equipment\.sid=s:([^.;]+)/.exec(decodeURIComponent(cookie))![1];
    const lock = await t.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT 1 FROM access.sessions WHERE sid = $1 FOR UPDATE', [sid]);
      let answered = false;
      const body = new URLSearchParams({ _csrf: csrfToken(html), subject, note: 'Patrol booked', back: '/admin/attention' }).toString();
      const response = new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(`${base}/admin/attention/unchecked/handled`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
        });
        req.on('response', (res) => {
          answered = true;
          resolve(res);
        });
        req.on('error', reject);
        req.end(body);
      });
      // The handling is written and the session's save waits on the lock: still no answer.
      await eventually(
        async () =>
          (
            await t.pool.query(
              `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%access%sessions%' AND pid <> pg_backend_pid()`,
            )
          ).rowCount,
        { what: 'the session save waiting on its row' },
      );
      await t.pool.query('SELECT pg_sleep(0.05)'); // a round trip to the database: time for headers to arrive, were any sent
      expect(answered).toBe(false);
      await lock.query('COMMIT');
      const res = await response;
      res.resume();
      expect(res.statusCode).toBe(303);
      const next = (await a.get('/admin/attention').expect(200)).text;
      expect(textOf(one(next, 'p[role="status"]'))).toMatch(/^Marked handled: .*, under “Riders not checked lately”/);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
      await t.owner.query(
        `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND rule = 'unchecked' AND subject_id = $1`,
        [subject],
      );
    }
  }
}

describe('notes as a person counts them', () => {
  const arabic = 'ت'.repeat(1500);
  const lines = Array.from({ length: 40 }, () => 'x'.repeat(49)).join('\r\n'); // 40 × 49 + 39 breaks = 1,999
  it.each([
    ['a note of 1,500 Arabic characters', arabic, 303, undefined],
    ['2,000 characters with line breaks (each sent as CR LF)', `${lines}y`, 303, undefined],
    ['2,001 characters', 'a'.repeat(2001), 400, 'must be at most 2,000 characters (a line break counts one); it has 2,001'],
    ['a NUL byte', 'Called\u0000 the 3PL', 400, 'must not hold control characters'],
    ['only invisible characters', '\u200B\u200B\u200B', 400, 'must hold visible words'],
    ['only spaces and line breaks', '  \r\n  ', 400, 'is required: say what was done'],
  ])('%s: %s', async (_what, note, status, message) => {
    const a = await signIn('lead-b');
    const subject = (await section(a, 'overdue-items')).ids[0];
    const before = await handledCount();
    const res = await markHandled(a, 'overdue-items', subject, note);
    expect(res.status).toBe(status);
    if (status === 303) {
      const { rows } = await t.pool.query(`SELECT note, id FROM access.attention_handled ORDER BY id DESC LIMIT 1`);
      expect(rows[0].note).toBe(note.replace(/\r\n/g, '\n'));
      await t.owner.query(`UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE id = $1`, [rows[0].id]);
      return;
    }
    expect(await handledCount()).toBe(before);
    expect(textOf(one(res.text, '#retry-note-error'))).toContain(message!);
    // What was typed comes back (its line breaks as the browser has them, the ends trimmed).
    expect(one(res.text, 'textarea#retry-note').textContent).toBe(note.replace(/\r\n/g, '\n').trim());
  });

  it('refuses an "until" day that is not after today, with the note kept', async () => {
    const a = await signIn('lead-b');
    const subject = (await section(a, 'overdue-items')).ids[0];
    for (const until of [today, '2020-01-01']) {
      const res = await markHandled(a, 'overdue-items', subject, 'Back next week', until);
      expect(res.status).toBe(400);
      expect(textOf(one(res.text, '#retry-until-error'))).toBe(
        `must be after today (${today}): the row comes back on the list the day after it`,
      );
      expect(textOf(one(res.text, 'textarea#retry-note'))).toBe('Back next week');
    }
  });
});

describe('a note saved after its session ended', () => {
  it('comes back after sign-in, filled in, and is saved then; nothing is saved before', async () => {
    const a = await signIn('lead-b');
    const page = (await a.get('/admin/attention').expect(200)).text;
    const before = await handledCount();
    // The session ends while the note is typed (its idle timeout): the store no longer has it.
    await t.owner.query(`UPDATE access.sessions SET expire = now() - interval '1 second' WHERE sess->'supervisor'->>'username' = 'lead-b'`);
    const note = 'Phoned the rider: the helmet goes back Tuesday. اتصلت بالسائق';
    const ended = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '107', note, until: '', back: '/admin/attention#unchecked' })
      .expect(401);
    expect(textOf(one(ended.text, '.notice'))).toContain('Your session ended before the note was saved');
    const carried = hiddenFields(ended.text, 'form.sign-in-form');
    expect(carried).toMatchObject({ kept_action: '/admin/attention/unchecked/handled', kept_subject: '107', kept_note: note });
    expect(await handledCount()).toBe(before);
    // Signed in again from that form: the note's page, filled in, to save.
    const signedIn = await a
      .post('/admin/sign-in')
      .type('form')
      .send({ ...carried, username: 'lead-b', password })
      .expect(303);
    expect(signedIn.headers.location).toBe('/admin/kept-note');
    const kept = (await a.get('/admin/kept-note').expect(200)).text;
    expect(textOf(one(kept, 'textarea#retry-note'))).toBe(note);
    const form = hiddenFields(kept, 'form.retry-form');
    expect(form).toMatchObject({ subject: '107', back: '/admin/attention#unchecked' });
    await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ ...form, note, until: '' })
      .expect(303);
    const { rows } = await t.owner.query(`SELECT note FROM access.attention_handled ORDER BY id DESC LIMIT 1`);
    expect(rows[0].note).toBe(note);
    // Shown once: the page after it is the queue.
    await a.get('/admin/kept-note').expect(303);
    // Undone, so that the other tests find rider 107 on its list.
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND note = $1`,
      [note],
    );
  });
});

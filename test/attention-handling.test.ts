// "Needs attention" as a work queue (src/admin/handling.ts, access.attention_handled): supervisors mark
// rows handled with a note, the rows leave their list and the counts until new evidence or their
// "until" day brings them back, Undo restores them, and a 3PL's supervisor handles only its riders.
// On a copy of the fixture of its own, signed in for real (sessions and CSRF tokens), as of today.
import http from 'node:http';
import request from 'supertest';
import { createSupervisor } from '../src/auth/supervisors';
import { serve, testApp, testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, hiddenFields, one, parseHtml, tableRows, textOf } from './support/html';
import { applied } from './support/rolled-back';
import { eventually } from './support/wait';
import { addAttentionRows, markAllHandled, markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';
import { confirmedCount, newestBatchUndo } from '../bench/admin-queue';

let t: TestApp;
let today: string;
let tomorrow: string;
let dayAfter: string;
const password = 'handling-pass-123';

beforeAll(async () => {
  t = await testAppWithAuth('handling');
  await createSupervisor(t.owner, { username: 'lead-a', password });
  await createSupervisor(t.owner, { username: 'lead-b', password });
  await createSupervisor(t.owner, { username: 'swift-lead', password, company: 'Swift & Co' });
  await addAttentionRows(t);
  const { rows } = await t.pool.query(
    `SELECT to_char(current_date, 'YYYY-MM-DD') AS today, to_char(current_date + 1, 'YYYY-MM-DD') AS tomorrow,
            to_char(current_date + 2, 'YYYY-MM-DD') AS "dayAfter"`,
  );
  ({ today, tomorrow, dayAfter } = rows[0]);
});
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);

/** One rule's section of the attention page: its rows (the first cell of each) and the cells of each. */
async function section(agent: Agent, rule: string, query = '') {
  const html = (await agent.get(`/admin/attention${query}`).expect(200)).text;
  const list = one(html, `section#${rule}`).querySelector('table.list');
  const rows = list ? tableRows(list) : [];
  return { html, ids: rows.map((row) => row[0]), rows };
}
/** The rule's count on the home page. */
async function homeCount(agent: Agent, rule: string): Promise<number> {
  const html = (await agent.get('/admin').expect(200)).text;
  const found = new RegExp(`href="/admin/attention#${rule}"><span class="figure">([0-9,]+)</span>`).exec(html);
  if (!found) throw new Error(`no count of ${rule} on the home page`);
  return Number(found[1].replace(/,/g, ''));
}
const handledCount = async () => Number((await t.pool.query('SELECT count(*) FROM access.attention_handled')).rows[0].count);

describe('marking rows handled', () => {
  it('takes the row off its list, its own list page, its CSV and the counts; another supervisor sees the note', async () => {
    const a = await signIn('lead-a');
    expect((await section(a, 'failing-checks')).ids).toContain('105');
    const before = await homeCount(a, 'failing-checks');

    const res = await markHandled(a, 'failing-checks', '105', 'Called the 3PL: the sticker is on order.');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/attention#failing-checks');

    // The next page says so, once.
    const next = (await a.get('/admin/attention').expect(200)).text;
    expect(textOf(one(next, 'p[role="status"]'))).toMatch(/^Marked handled: Lee Park, under “Failing patrol checks”/);
    expect((await a.get('/admin/attention').expect(200)).text).not.toContain('role="status"');
    expect((await section(a, 'failing-checks')).ids).not.toContain('105');
    expect(await homeCount(a, 'failing-checks')).toBe(before - 1);
    const list = (await a.get('/admin/attention/failing-checks').expect(200)).text;
    expect(tableRows(list).map((row) => row[0])).not.toContain('105');
    const csv = (await a.get('/admin/attention/failing-checks.csv').expect(200)).text;
    expect(
      csv
        .split('\n')
        .slice(1)
        .map((line) => line.split(',')[0]),
    ).not.toContain('105');

    const b = await signIn('lead-b');
    const handled = tableRows((await b.get('/admin/attention/failing-checks/handled').expect(200)).text);
    expect(handled).toEqual([
      ['Lee Park (105)', 'swift & co', 'Called the 3PL: the sticker is on order.', 'lead-a', expect.any(String), '–', 'Undo: Lee Park'],
    ]);
  });

  it('brings the row back when new evidence arrives (a newer failed check), showing the earlier note', async () => {
    const a = await signIn('lead-a');
    expect((await section(a, 'failing-checks')).ids).not.toContain('105');
    await t.owner.query(`INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
      VALUES (9203, 105, 1, now() - interval '1 hour', true, false, true)`);
    await applied(t.owner);
    const { rows } = await section(a, 'failing-checks');
    const row = rows.find((r) => r[0] === '105')!;
    expect(row).toBeDefined();
    expect(row.at(-3)).toMatch(/^Called the 3PL: the sticker is on order\. \(lead-a, \d{4}-\d\d-\d\d\)$/);
  });

  it('Undo puts a handled row back at once, and it leaves the handled view', async () => {
    const a = await signIn('lead-a');
    expect((await markHandled(a, 'failing-checks', '105', 'Second note')).status).toBe(303);
    expect((await section(a, 'failing-checks')).ids).not.toContain('105');
    const view = (await a.get('/admin/attention/failing-checks/handled').expect(200)).text;
    const form = one(view, 'form[action$="/undo"]');
    const res = await a
      .post(form.getAttribute('action')!)
      .type('form')
      .send({ _csrf: csrfToken(view), back: '/admin/attention/failing-checks/handled' })
      .expect(303);
    expect(res.headers.location).toBe('/admin/attention/failing-checks/handled');
    expect((await section(a, 'failing-checks')).ids).toContain('105');
    const after = tableRows((await a.get('/admin/attention/failing-checks/handled').expect(200)).text);
    expect(after.map((row) => row[2])).not.toContain('Second note');
    // Undone, not deleted: the history keeps who undid it.
    const { rows } = await t.pool.query(
      `SELECT h.note, u.username FROM access.attention_handled h JOIN access.supervisors u ON u.id = h.undone_by WHERE h.note = 'Second note'`,
    );
    expect(rows).toEqual([{ note: 'Second note', username: 'lead-a' }]);

    // Another supervisor's Undo from a page loaded before: nothing to undo, said so where the row is; not a 404.
    const b = await signIn('lead-b');
    const again = await b
      .post(form.getAttribute('action')!)
      .type('form')
      .send({
        _csrf: csrfToken((await b.get('/admin/attention/failing-checks/handled').expect(200)).text),
        back: '/admin/attention/failing-checks',
      })
      .expect(303);
    expect(again.headers.location).toBe('/admin/attention/failing-checks');
    const told = (await b.get('/admin/attention/failing-checks').expect(200)).text;
    expect(textOf(one(told, 'p[role="status"]'))).toMatch(
      /^Nothing to undo: this was undone already, by lead-a on \d{4}-\d\d-\d\d \d\d:\d\d\.$/,
    );
    expect((await section(b, 'failing-checks')).ids).toContain('105');
    // An id that names no handling stays a 404.
    await b
      .post('/admin/attention/handled/987654321/undo')
      .type('form')
      .send({ _csrf: csrfToken(told) })
      .expect(404);
  });

  it('shows the rider’s handling history on the rider page: every note, who, when, and what was undone', async () => {
    const b = await signIn('lead-b');
    const page = (await b.get('/admin/riders/105').expect(200)).text;
    const history = tableRows(one(page, 'section[aria-labelledby="history-title"]'));
    expect(history).toEqual([
      [
        'Failing patrol checks',
        'Second note',
        'lead-a',
        expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/),
        '–',
        expect.stringMatching(/ by lead-a$/),
      ],
      ['Failing patrol checks', 'Called the 3PL: the sticker is on order.', 'lead-a', expect.any(String), '–', '–'],
    ]);
    const none = (await b.get('/admin/riders/103').expect(200)).text;
    expect(textOf(one(none, 'section[aria-labelledby="history-title"]'))).toContain(
      'No supervisor has marked a point of this rider handled.',
    );
  });

  it('keeps a row off until its "until" day has passed', async () => {
    const a = await signIn('lead-a');
    expect((await section(a, 'unchecked')).ids).toContain('107');
    expect((await markHandled(a, 'unchecked', '107', 'Patrol booked for tomorrow', tomorrow)).status).toBe(303);
    expect((await section(a, 'unchecked')).ids).not.toContain('107');
    expect((await section(a, 'unchecked', `?as_of=${tomorrow}`)).ids).not.toContain('107');
    const { rows } = await section(a, 'unchecked', `?as_of=${dayAfter}`);
    const row = rows.find((r) => r[0] === '107')!;
    expect(row.at(-3)).toBe(`Patrol booked for tomorrow (lead-a, ${today}, until ${tomorrow})`);
  });

  it('an item that passes its exchange day after the note brings the rider back', async () => {
    const a = await signIn('lead-a');
    const overdue = async () => (await section(a, 'overdue-items')).rows.filter((r) => r[0] === '101').map((r) => r[3]);
    expect(await overdue()).not.toEqual([]);
    expect((await markHandled(a, 'overdue-items', '101', 'Exchange booked')).status).toBe(303);
    expect(await overdue()).toEqual([]);
    // A helmet (180 days) assigned 181 days ago: its exchange day was yesterday.
    await t.owner
      .query(`INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at)
      VALUES (1130, 101, 10, 12, now() - interval '182 days', 1, 0, 'assign', NULL)`);
    await applied(t.owner);
    // The rider is back as one row, with every item past its day: the new one and those the note covered.
    expect(await overdue()).toEqual(['3 items: Helmet / L; Delivery Bag / Large Box; Helmet / L']);
  });

  it('handles a 3PL of the losses rule until a newer Lost or Accident exchange', async () => {
    const a = await signIn('lead-a');
    const losses = async () => (await section(a, 'losses')).ids;
    expect(await losses()).toContain('Swift & Co');
    expect((await markHandled(a, 'losses', '1', 'Asked Swift & Co for the police reports')).status).toBe(303);
    expect(await losses()).not.toContain('Swift & Co');
    await t.owner.query(`
      INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at) VALUES
        (1140, 101, 20, 21, now() - interval '10 days', 1, 0, 'assign', now()),
        (1141, 101, 20, 21, now(), 1, 0, 'exchange', NULL);
      INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
        VALUES (7202, 1140, 1141, now(), 'Accident', 'Accident', 1);`);
    await applied(t.owner);
    expect(await losses()).toContain('Swift & Co');
  });
});

describe('what is refused', () => {
  it('refuses a form without the session’s token, and a note left empty; writes nothing', async () => {
    const a = await signIn('lead-a');
    const before = await handledCount();
    await a.post('/admin/attention/unchecked/handled').type('form').send({ subject: '101', note: 'x' }).expect(403);
    await a.post('/admin/attention/unchecked/handled').type('form').send({ _csrf: 'forged', subject: '101', note: 'x' }).expect(403);
    const page = (await a.get('/admin/attention').expect(200)).text;
    const blank = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '101', note: '   ' });
    expect(blank.status).toBe(400);
    expect(textOf(one(blank.text, 'main'))).toContain('Note: is required: say what was done');
    const badDay = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '101', note: 'Called the rider, kit at the depot', until: '2025-02-30' });
    expect(badDay.status).toBe(400);
    // Nothing typed is lost: the same form again, filled in, saying what to correct.
    expect(textOf(one(badDay.text, 'main'))).toContain('Until: must be a real calendar day written YYYY-MM-DD');
    const retry = badDay.text.slice(badDay.text.indexOf('<main'));
    expect(retry).toContain('>Called the rider, kit at the depot</textarea>');
    expect(retry).toContain('value="2025-02-30"');
    expect(retry).toContain('name="subject" value="101"');
    expect(retry).toContain('action="/admin/attention/unchecked/handled"');
    // The retry page carries the session's token, so the corrected form is sent like any other.
    expect(csrfToken(badDay.text)).toBe(csrfToken(page));
    await a
      .post('/admin/attention/nothing/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '101', note: 'x' })
      .expect(404);
    // Rider 103 holds nothing: not listed as unchecked (as a row that left the list while its note was
    // typed), so there is nothing to mark; the note comes back, unsaved, with the reason.
    const left = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '103', note: 'Called: the kit is back at the depot', back: '/admin/attention#unchecked' })
      .expect(409);
    expect(textOf(one(left.text, '.error-summary h2'))).toBe(
      'Nothing was saved: Omar "O" Neil is no longer under “Riders not checked lately”',
    );
    expect(textOf(one(left.text, 'textarea#retry-note'))).toBe('Called: the kit is back at the depot');
    expect(one(left.text, 'a[href="/admin/attention#unchecked"]')).toBeDefined();
    expect(left.text).not.toContain('>Save</button>');
    expect(await handledCount()).toBe(before);
  });

  it('a supervisor of one 3PL sees and handles only its riders', async () => {
    const scoped = await signIn('swift-lead');
    const page = (await scoped.get('/admin/attention').expect(200)).text;
    // 105 is of "swift & co" (another 3PL, company 5): not found, whatever the form says.
    await scoped
      .post('/admin/attention/failing-checks/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '105', note: 'x' })
      .expect(404);
    await scoped
      .post('/admin/attention/losses/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '2', note: 'x' })
      .expect(404);
    // lead-a's notes on 101 (Swift & Co) show; those on 105 do not, and cannot be undone from here.
    const overdue = tableRows((await scoped.get('/admin/attention/overdue-items/handled').expect(200)).text);
    expect(overdue.map((row) => row[0])).toEqual(['Ahmed Khan (101)']);
    expect(tableRows((await scoped.get('/admin/attention/failing-checks/handled').expect(200)).text)).toEqual([]);
    const { rows } = await t.pool.query(`SELECT id FROM access.attention_handled WHERE subject_id = 105 AND undone_at IS NULL`);
    expect(rows.length).toBeGreaterThan(0);
    await scoped
      .post(`/admin/attention/handled/${rows[0].id}/undo`)
      .type('form')
      .send({ _csrf: csrfToken(page) })
      .expect(404);
    // Its own rows it handles.
    expect((await markHandled(scoped, 'unchecked', '9007199254740993', 'Checked by phone')).status).toBe(303);
  });

  it('without sign-in the queue is read-only', async () => {
    const open = testApp('handling');
    try {
      const html = (await request(open.app).get('/admin/attention').expect(200)).text;
      expect(html).toContain('Sign in to mark handled');
      await request(open.app).post('/admin/attention/unchecked/handled').type('form').send({ subject: '101', note: 'x' }).expect(403);
    } finally {
      await open.close();
    }
  });
});

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

describe('saves of one row at once', () => {
  it('keeps one live handling of 20 saves at once; the 19 others say who handled it and keep their notes; one Undo restores the row', async () => {
    const agents = await Promise.all([signIn('lead-a'), signIn('lead-b')]);
    const [subject] = (await section(agents[0], 'overdue-items')).ids;
    expect(subject).toBeDefined();
    const tokens = await Promise.all(agents.map(async (agent) => csrfToken((await agent.get('/admin/attention').expect(200)).text)));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        agents[i % 2]
          .post('/admin/attention/overdue-items/handled')
          .type('form')
          .send({ _csrf: tokens[i % 2], subject, note: `Saved at once, number ${i}`, back: '/admin/attention#overdue-items' }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([303, ...Array(19).fill(409)]);
    const { rows: live } = await t.pool.query(
      `SELECT h.note, s.username FROM access.attention_handled h JOIN access.supervisors s ON s.id = h.handled_by
        WHERE rule = 'overdue-items' AND subject_id = $1 AND undone_at IS NULL AND superseded_at IS NULL`,
      [subject],
    );
    expect(live).toHaveLength(1);
    answers.forEach((res, i) => {
      if (res.status !== 409) return;
      expect(textOf(one(res.text, '.error-summary h2'))).toMatch(/^Nothing was saved: .+ was handled meanwhile$/);
      expect(textOf(one(res.text, '.error-summary p'))).toContain(`${live[0].username} marked it handled on`);
      expect(textOf(one(res.text, '.error-summary p'))).toContain(live[0].note);
      expect(textOf(one(res.text, 'textarea#retry-note'))).toBe(`Saved at once, number ${i}`);
    });
    expect((await section(agents[0], 'overdue-items')).ids).not.toContain(subject);

    const handled = (await agents[0].get('/admin/attention/overdue-items/handled').expect(200)).text;
    const [{ id }] = (
      await t.pool.query(
        `SELECT id FROM access.attention_handled WHERE rule = 'overdue-items' AND subject_id = $1 AND undone_at IS NULL AND superseded_at IS NULL`,
        [subject],
      )
    ).rows;
    await agents[0]
      .post(`/admin/attention/handled/${id}/undo`)
      .type('form')
      .send({ _csrf: csrfToken(handled) })
      .expect(303);
    expect((await section(agents[0], 'overdue-items')).ids).toContain(subject);
  });

  it('a new handling of a row that came back replaces the one before it, which stays in the history', async () => {
    const { rows } = await t.pool.query(
      `SELECT rule, subject_id, count(*) FILTER (WHERE undone_at IS NULL AND superseded_at IS NULL)::int AS live
         FROM access.attention_handled GROUP BY 1, 2`,
    );
    for (const row of rows) expect(row.live).toBeLessThanOrEqual(1);
    // Rider 105's first note (before a newer failed check brought the rider back) was replaced by the second.
    const { rows: notes } = await t.pool.query(
      `SELECT note, superseded_at IS NOT NULL AS superseded FROM access.attention_handled
        WHERE rule = 'failing-checks' AND subject_id = 105 ORDER BY id`,
    );
    expect(notes.slice(0, 2)).toEqual([
      { note: 'Called the 3PL: the sticker is on order.', superseded: true },
      { note: 'Second note', superseded: false },
    ]);
    const a = await signIn('lead-a');
    const riderPage = (await a.get('/admin/riders/105').expect(200)).text;
    const history = textOf(one(riderPage, 'section[aria-labelledby="history-title"]'));
    expect(history).toContain('Called the 3PL: the sticker is on order.');
    expect(history).toContain('Second note');
    // The replaced note cannot be undone: the answer says which to undo instead, and nothing changes.
    const { rows: first } = await t.pool.query(
      `SELECT id FROM access.attention_handled WHERE rule = 'failing-checks' AND subject_id = 105 AND note = 'Called the 3PL: the sticker is on order.'`,
    );
    const res = await a
      .post(`/admin/attention/handled/${first[0].id}/undo`)
      .type('form')
      .send({ _csrf: csrfToken(riderPage), back: '/admin/riders/105' })
      .expect(303);
    expect(res.headers.location).toBe('/admin/riders/105');
    expect(textOf(one((await a.get('/admin/riders/105').expect(200)).text, 'p[role="status"]'))).toBe(
      'Nothing to undo: a later note on the same row replaced this one; undo that one instead.',
    );
    const { rows: after } = await t.pool.query(
      `SELECT count(*)::int AS n FROM access.attention_handled WHERE rule = 'failing-checks' AND subject_id = 105 AND undone_at IS NOT NULL`,
    );
    expect(after[0].n).toBe(1); // the second note, undone in the test before; the replaced one untouched
  });
});

describe('handling many at once', () => {
  /** The rule list's rows (rider ids) and the page's batch form token. */
  async function listed(agent: Agent, query = '') {
    const html = (await agent.get(`/admin/attention/unchecked${query}`).expect(200)).text;
    const ids = tableRows(html).map((row) => row[1]);
    return { html, ids };
  }
  const batch = (agent: Agent, html: string, fields: Record<string, string | string[]>) =>
    agent
      .post('/admin/attention/unchecked/batch')
      .type('form')
      .send({ _csrf: csrfToken(html), back: '/admin/attention/unchecked', ...fields });
  const undoAll = () =>
    t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND superseded_at IS NULL AND rule = 'unchecked'`,
    );

  it('ticked rows: a confirmation names the count, the rows leave with one note, and one Undo brings them all back', async () => {
    await undoAll();
    const a = await signIn('lead-a');
    const { html, ids } = await listed(a);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const page = parseHtml(html);
    expect(page.querySelector('form#batch-form')).not.toBeNull();
    expect(
      page.querySelectorAll('input[type="checkbox"][form="batch-form"][name="subjects"]').map((box) => box.getAttribute('value')),
    ).toEqual(ids);
    const ticked = ids.slice(0, 2);

    const confirm = await batch(a, html, { which: 'ticked', subjects: ticked, note: 'Patrols booked for both' });
    expect(confirm.status).toBe(200);
    expect(textOf(one(confirm.text, '.confirm-box'))).toMatch(
      /^Mark 2 riders of “Riders not checked lately” handled, with the note below\?/,
    );
    expect(confirmedCount(confirm.text)).toBe(2); // as the bench's work queue reads it
    const before = await handledCount();
    const done = await batch(a, confirm.text, { which: 'ticked', subjects: ticked, note: 'Patrols booked for both', confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await handledCount()).toBe(before + 2);
    const after = await listed(a);
    expect(after.ids).not.toContain(ticked[0]);
    expect(after.ids).not.toContain(ticked[1]);
    expect(after.ids).toEqual(ids.slice(2));
    expect(textOf(one(after.html, 'p[role="status"]'))).toMatch(/^Marked handled: 2 rows of “Riders not checked lately”, with one note\./);

    const handled = (await a.get('/admin/attention/unchecked/handled').expect(200)).text;
    const item = one(handled, 'ul.batches li');
    expect(textOf(item)).toContain('2 rows by lead-a');
    const undo = item.querySelector('form')!.getAttribute('action')!;
    expect(newestBatchUndo(handled)).toBe(undo);
    await a
      .post(undo)
      .type('form')
      .send({ _csrf: csrfToken(handled) })
      .expect(303);
    expect((await listed(a)).ids).toEqual(ids);
    // A second click: nothing to undo, and the page says who undid it; the rows stay back on the list.
    const again = await a
      .post(undo)
      .type('form')
      .send({ _csrf: csrfToken(handled) })
      .expect(303);
    const told = (await a.get(again.headers.location).expect(200)).text;
    expect(textOf(one(told, 'p[role="status"]'))).toMatch(/^Nothing to undo: this batch was undone already, by lead-a on /);
    expect((await listed(a)).ids).toEqual(ids);
    await a
      .post('/admin/attention/batches/987654321/undo')
      .type('form')
      .send({ _csrf: csrfToken(handled) })
      .expect(404);
  });

  it('all the rows a filter selects, and only those; the rows of other 3PLs stay', async () => {
    await undoAll();
    const a = await signIn('lead-a');
    const all = await listed(a);
    const swift = await listed(a, '?3pl=Swift+%26+Co');
    expect(swift.ids.length).toBeGreaterThan(0);
    expect(swift.ids.length).toBeLessThan(all.ids.length);
    const confirm = await batch(a, swift.html, { which: 'all', '3pl': 'Swift & Co', note: 'Whole 3PL called' });
    expect(textOf(one(confirm.text, '.confirm-box'))).toContain(`Mark ${swift.ids.length} ${swift.ids.length === 1 ? 'rider' : 'riders'}`);
    expect(textOf(one(confirm.text, '.confirm-box'))).toContain('(3PL: Swift & Co)');
    await batch(a, confirm.text, { which: 'all', '3pl': 'Swift & Co', note: 'Whole 3PL called', confirm: 'yes' }).expect(303);
    expect((await listed(a, '?3pl=Swift+%26+Co')).ids).toEqual([]);
    expect((await listed(a)).ids).toEqual(all.ids.filter((id) => !swift.ids.includes(id)));
    await undoAll();
  });

  it('refuses a batch with nothing ticked, or a bad note, and keeps what was typed', async () => {
    const a = await signIn('lead-a');
    const { html } = await listed(a);
    const before = await handledCount();
    const none = await batch(a, html, { which: 'ticked', note: 'For nobody' });
    expect(none.status).toBe(400);
    expect(textOf(one(none.text, '.error-summary'))).toContain('Which rows: tick at least one row');
    expect(textOf(one(none.text, 'textarea#batch-note'))).toBe('For nobody');
    const empty = await batch(a, html, { which: 'all', note: '\u200B' });
    expect(empty.status).toBe(400);
    expect(textOf(one(empty.text, '#batch-note-error'))).toContain('must hold visible words');
    expect(await handledCount()).toBe(before);
  });
});

describe('giving rows to a supervisor', () => {
  const list = async (agent: Agent, query = '') => {
    const html = (await agent.get(`/admin/attention/unchecked${query}`).expect(200)).text;
    const header = parseHtml(html)
      .querySelectorAll('table.list thead th')
      .map((th) => textOf(th));
    const at = header.indexOf('Assigned to');
    return { html, rows: tableRows(html).map((row) => ({ id: row[1], owner: row[at] })) };
  };
  const give = (agent: Agent, html: string, fields: Record<string, string | string[]>) =>
    agent
      .post('/admin/attention/unchecked/assign')
      .type('form')
      .send({ _csrf: csrfToken(html), back: '/admin/attention/unchecked', ...fields });

  it('gives ticked rows to a supervisor, shown on the rows, with Mine and Unassigned views; a handling keeps whom', async () => {
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND superseded_at IS NULL AND rule = 'unchecked'`,
    );
    const a = await signIn('lead-a');
    const before = await list(a);
    expect(before.rows.every((row) => row.owner === '–')).toBe(true);
    const options = parseHtml(before.html)
      .querySelectorAll('select#batch-assignee option')
      .map((o) => o.getAttribute('value'));
    expect(options).toEqual(expect.arrayContaining(['', 'lead-a', 'lead-b', 'swift-lead']));
    const ticked = before.rows.slice(0, 2).map((row) => row.id);

    await give(a, before.html, { which: 'ticked', subjects: ticked, assignee: 'lead-b' }).expect(303);
    const after = await list(a);
    expect(after.rows.filter((row) => row.owner === 'lead-b').map((row) => row.id)).toEqual(ticked);
    expect(textOf(one(after.html, 'p[role="status"]'))).toBe('Given to lead-b: 2 rows of “Riders not checked lately”.');

    const b = await signIn('lead-b');
    expect((await list(b, '?owner=lead-b')).rows.map((row) => row.id)).toEqual(ticked);
    const mine = parseHtml((await list(b)).html).querySelector('nav.owner-views a')!;
    expect(mine.getAttribute('href')).toBe('/admin/attention/unchecked?owner=lead-b');
    const unassigned = (await list(b, '?owner=unassigned')).rows.map((row) => row.id);
    expect(unassigned).toEqual(before.rows.map((row) => row.id).filter((id) => !ticked.includes(id)));

    expect((await markHandled(a, 'unchecked', ticked[0], 'Called by lead-a for lead-b')).status).toBe(303);
    const { rows } = await t.pool.query(
      `SELECT s.username FROM access.attention_handled h JOIN access.supervisors s ON s.id = h.assigned_to
        WHERE h.rule = 'unchecked' AND h.subject_id = $1 AND h.undone_at IS NULL AND h.superseded_at IS NULL`,
      [ticked[0]],
    );
    expect(rows).toEqual([{ username: 'lead-b' }]);
    expect(textOf(one((await a.get('/admin/attention/unchecked/handled').expect(200)).text, 'table.list tbody'))).toContain(
      '(given to lead-b)',
    );

    // Taken back: given to nobody.
    await give(a, after.html, { which: 'ticked', subjects: [ticked[1]], assignee: '' }).expect(303);
    expect((await list(a)).rows.find((row) => row.id === ticked[1])!.owner).toBe('–');
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND superseded_at IS NULL AND rule = 'unchecked'`,
    );
    await t.owner.query(`DELETE FROM access.attention_owners`);
  });

  it('on a list narrowed to whom its rows were given, "all the rows the filters select" are those rows only', async () => {
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND superseded_at IS NULL AND rule = 'unchecked'`,
    );
    const a = await signIn('lead-a');
    const everyone = (await list(a)).rows.map((row) => row.id);
    expect(everyone.length).toBeGreaterThanOrEqual(3);
    await give(a, (await list(a)).html, { which: 'ticked', subjects: [everyone[0]], assignee: 'lead-b' }).expect(303);
    // The batch form as the narrowed page draws it: its hidden fields carry the filter.
    const narrowed = await list(a, '?owner=lead-b');
    expect(narrowed.rows.map((row) => row.id)).toEqual([everyone[0]]);
    const hidden = hiddenFields(narrowed.html, 'form#batch-form');
    expect(hidden.owner).toBe('lead-b');
    const confirmation = await markAllHandled(a, 'unchecked', narrowed.html, 'Only the one given to lead-b');
    expect(confirmation).toMatch(/^Mark 1 rider of “Riders not checked lately” handled \(assigned to: lead-b\)/);
    const { rows } = await t.pool.query(
      `SELECT subject_id::text AS id FROM access.attention_handled WHERE rule = 'unchecked' AND undone_at IS NULL AND superseded_at IS NULL`,
    );
    expect(rows).toEqual([{ id: everyone[0] }]);
    // Giving "all" the narrowed rows to someone else moves that one row only.
    await give(a, narrowed.html, { which: 'all', owner: 'unassigned', assignee: 'lead-a' }).expect(303);
    const { rows: owned } = await t.pool.query(
      `SELECT o.subject_id::text AS id, s.username FROM access.attention_owners o JOIN access.supervisors s ON s.id = o.assigned_to WHERE o.rule = 'unchecked' ORDER BY 1`,
    );
    expect(owned.find((row) => row.id === everyone[0])).toEqual({ id: everyone[0], username: 'lead-b' });
    expect(owned.filter((row) => row.username === 'lead-a').length).toBe(everyone.length - 1); // all but lead-b's
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND rule = 'unchecked'`,
    );
    await t.owner.query(`DELETE FROM access.attention_owners`);
  });

  it('a supervisor of one 3PL gives its rows only, and only to those who see that 3PL', async () => {
    const scoped = await signIn('swift-lead');
    const { html, rows } = await list(scoped);
    const options = parseHtml(html)
      .querySelectorAll('select#batch-assignee option')
      .map((o) => o.getAttribute('value'));
    expect(options).toEqual(['', 'lead-a', 'lead-b', 'swift-lead']);
    await t.owner.query(
      `INSERT INTO access.supervisors (username, password_hash, company_id) SELECT 'express-lead', 'x', id FROM companies WHERE name = '100%_Express'`,
    );
    const refused = await give(scoped, html, { which: 'all', assignee: 'express-lead' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('there is no supervisor “express-lead” who sees these rows');
    await give(scoped, html, { which: 'all', assignee: 'swift-lead' }).expect(303);
    const { rows: given } = await t.pool.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE c.name <> 'Swift & Co')::int AS other FROM access.attention_owners o
         JOIN riders r ON r.id = o.subject_id JOIN companies c ON c.id = r.company_id`,
    );
    expect(given[0]).toEqual({ n: rows.length, other: 0 });
    await t.owner.query(`DELETE FROM access.attention_owners; DELETE FROM access.supervisors WHERE username = 'express-lead'`);
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

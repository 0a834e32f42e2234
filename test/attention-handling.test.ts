// "Needs attention" as a work queue (src/admin/handling.ts, access.attention_handled): supervisors mark
// rows handled with a note, the rows leave their list and the counts until new evidence or their
// "until" day brings them back, Undo restores them, a 3PL's supervisor handles only its riders, and
// saves of one row at once keep one handling. On a copy of the fixture of its own, signed in for real
// (sessions and CSRF tokens), as of today (test/support/attention-handling.ts). The page after a save
// and the notes: test/attention-handling-notes.test.ts; many rows at once and rows given to a
// supervisor: test/attention-handling-batches.test.ts.
import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { csrfToken, one, tableRows, textOf } from './support/html';
import { applied } from './support/rolled-back';
import { markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';
import { countHandled, handlingApp, homeCount, password, section } from './support/attention-handling';

let t: TestApp;
let today: string;
let tomorrow: string;
let dayAfter: string;

beforeAll(async () => ({ t, today, tomorrow, dayAfter } = await handlingApp('handling')));
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
const handledCount = () => countHandled(t);

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

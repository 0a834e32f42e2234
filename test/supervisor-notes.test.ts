// Notes that mark nothing handled (src/admin/notes.ts, access.supervisor_notes): what a supervisor typed
// always has somewhere to go. A row that left "Needs attention" while its note was typed: saved on the
// rider. A row handled by someone else meanwhile: added beside their note. A note on a rider from its
// page; through an ended session; refused with the text kept; a 3PL's supervisor on its riders only.
import { TICKED_MAX } from '../src/admin/selection';
import { KEPT_TICKED_MAX } from '../src/auth/sign-in';
import { createSupervisor } from '../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, hiddenFields, one, parseHtml, textOf } from './support/html';
import { addAttentionRows, markAllHandled, markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';

let t: TestApp;
const password = 'notes-pass-1234';

beforeAll(async () => {
  t = await testAppWithAuth('notes');
  await createSupervisor(t.owner, { username: 'lead-a', password });
  await createSupervisor(t.owner, { username: 'lead-b', password });
  await createSupervisor(t.owner, { username: 'swift-lead', password, company: 'Swift & Co' });
  await addAttentionRows(t);
});
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
const notesOf = async (rider: string) =>
  (
    await t.pool.query(
      `SELECT n.note, n.rule, n.handling_id, s.username FROM access.supervisor_notes n JOIN access.supervisors s ON s.id = n.written_by
        WHERE n.rider_id = $1 ORDER BY n.id`,
      [rider],
    )
  ).rows;
/** The rider page's "Supervisors' notes": each note's text and its line of who, when, beside whom. */
async function riderNotes(agent: Agent, rider: string) {
  const html = (await agent.get(`/admin/riders/${rider}`).expect(200)).text;
  return [...parseHtml(html).querySelectorAll('ul.rider-notes li')].map((li) => textOf(li));
}
/** The form's fields, and the action each of its buttons posts to (a formaction, or the form's own). */
function buttonsOf(html: string) {
  const form = one(html, 'form.retry-form');
  return Object.fromEntries(
    [...form.querySelectorAll('button')].map((b) => [textOf(b), b.getAttribute('formaction') ?? form.getAttribute('action')]),
  );
}

describe('a note whose row left its list while it was typed', () => {
  it('is offered back with a way to save it on the rider, and is saved there', async () => {
    const a = await signIn('lead-a');
    const page = (await a.get('/admin/attention').expect(200)).text;
    const note = 'Called: the kit is back at the depot. تم الاتصال';
    // Rider 103 holds nothing: not listed as unchecked (as a row a new check took off the list).
    const left = await a
      .post('/admin/attention/unchecked/handled')
      .type('form')
      .send({ _csrf: csrfToken(page), subject: '103', note, back: '/admin/attention#unchecked' })
      .expect(409);
    expect(textOf(one(left.text, '.error-summary p'))).toContain('save it on the rider as a note');
    expect(buttonsOf(left.text)).toEqual({ 'Save it on the rider as a note': '/admin/riders/103/notes' });
    const fields = hiddenFields(left.text, 'form.retry-form');
    expect(fields).toMatchObject({ subject: '103', rule: 'unchecked', back: '/admin/attention#unchecked' });

    const saved = await a
      .post('/admin/riders/103/notes')
      .type('form')
      .send({ ...fields, note: textOf(one(left.text, 'textarea#retry-note')) })
      .expect(303);
    expect(saved.headers.location).toBe('/admin/attention#unchecked');
    const next = (await a.get('/admin/attention').expect(200)).text;
    expect(textOf(one(next, 'p[role="status"]'))).toBe(
      'Saved as a note on Omar "O" Neil: it is under “Supervisors’ notes” on the rider’s page. See it on the rider’s page',
    );
    expect(one(next, 'p[role="status"] a').getAttribute('href')).toBe('/admin/riders/103#notes-title');
    expect(await notesOf('103')).toEqual([{ note, rule: 'unchecked', handling_id: null, username: 'lead-a' }]);
    const shown = await riderNotes(a, '103');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(new RegExp(`^${note} — lead-a, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d, under “Riders not checked lately”$`));
    // Another supervisor reads it too.
    expect(await riderNotes(await signIn('lead-b'), '103')).toEqual(shown);
  });
});

describe('a note whose row was handled by another supervisor meanwhile', () => {
  it('is offered back with Add beside theirs (no Save that would answer the same again), and is shown beside their note', async () => {
    const [a, b] = await Promise.all([signIn('lead-a'), signIn('lead-b')]);
    const pageB = (await b.get('/admin/attention').expect(200)).text;
    expect((await markHandled(a, 'failing-checks', '105', 'Sticker ordered from the 3PL.')).status).toBe(303);
    const late = await b
      .post('/admin/attention/failing-checks/handled')
      .type('form')
      .send({
        _csrf: csrfToken(pageB),
        subject: '105',
        note: 'Rider says the plate is fixed too.',
        back: '/admin/attention#failing-checks',
      })
      .expect(409);
    const { rows: live } = await t.pool.query(
      `SELECT id FROM access.attention_handled WHERE rule = 'failing-checks' AND subject_id = 105 AND undone_at IS NULL AND superseded_at IS NULL`,
    );
    expect(buttonsOf(late.text)).toEqual({
      'Add my note beside theirs': `/admin/attention/handled/${live[0].id}/notes`,
      'Save it on the rider as a note': '/admin/riders/105/notes',
    });
    const fields = hiddenFields(late.text, 'form.retry-form');
    await b
      .post(`/admin/attention/handled/${live[0].id}/notes`)
      .type('form')
      .send({ ...fields, note: 'Rider says the plate is fixed too.' })
      .expect(303);
    const next = (await b.get('/admin/attention').expect(200)).text;
    expect(textOf(one(next, 'p[role="status"]'))).toMatch(/^Your note is saved beside lead-a’s, under “Failing patrol checks”\./);

    // On the rule's handled rows, under lead-a's note; on the rider page, in the history and the notes.
    const handled = (await a.get('/admin/attention/failing-checks/handled').expect(200)).text;
    const row = [...parseHtml(handled).querySelectorAll('tbody tr')].find((tr) => textOf(tr).includes('Sticker ordered'))!;
    expect(textOf(row.querySelector('ul.added-notes')!)).toMatch(
      /^Rider says the plate is fixed too\. — lead-b, \d{4}-\d\d-\d\d \d\d:\d\d$/,
    );
    const rider = (await a.get('/admin/riders/105').expect(200)).text;
    expect(textOf(one(rider, 'section[aria-labelledby="history-title"] ul.added-notes'))).toContain('Rider says the plate is fixed too.');
    expect((await riderNotes(a, '105'))[0]).toMatch(/— lead-b, .*, beside the note of lead-a, under “Failing patrol checks”$/);
    expect(await notesOf('105')).toEqual([
      { note: 'Rider says the plate is fixed too.', rule: 'failing-checks', handling_id: live[0].id, username: 'lead-b' },
    ]);
  });
});

describe('a note on a rider, from the rider page', () => {
  it('is written from the page, refused with the text kept when it cannot be saved, and pages to older notes', async () => {
    const a = await signIn('lead-a');
    const page = (await a.get('/admin/riders/101').expect(200)).text;
    const form = hiddenFields(page, 'form.rider-note-form');
    expect(form).toMatchObject({ subject: '101', back: '/admin/riders/101#notes-title' });
    expect(one(page, 'form.rider-note-form').getAttribute('action')).toBe('/admin/riders/101/notes');

    const blank = await a
      .post('/admin/riders/101/notes')
      .type('form')
      .send({ ...form, note: ' \u200b ' })
      .expect(400);
    expect(textOf(one(blank.text, '#retry-note-error'))).toBe('must hold visible words: it has only spaces or invisible characters');
    const long = 'ب'.repeat(2001);
    const over = await a
      .post('/admin/riders/101/notes')
      .type('form')
      .send({ ...form, note: long })
      .expect(400);
    expect(textOf(one(over.text, '#retry-note-error'))).toBe('must be at most 2,000 characters (a line break counts one); it has 2,001');
    expect(one(over.text, 'textarea#retry-note').textContent).toBe(long);
    expect(buttonsOf(over.text)).toEqual({ Save: '/admin/riders/101/notes' });
    await a
      .post('/admin/riders/101/notes')
      .type('form')
      .send({ ...form, note: 'x', rule: 'nothing' })
      .expect(400);
    expect(await notesOf('101')).toEqual([]);

    for (let i = 1; i <= 21; i++) {
      await a
        .post('/admin/riders/101/notes')
        .type('form')
        .send({ _csrf: form._csrf, note: `Note ${i}` })
        .expect(303);
    }
    // Back on the rider's page, where the note is in sight: the notice leads nowhere else.
    const landed = (await a.get('/admin/riders/101').expect(200)).text;
    expect(textOf(one(landed, 'p[role="status"]'))).toMatch(/^Saved as a note on [^:]+\.$/);
    expect(parseHtml(landed).querySelector('p[role="status"] a')).toBeNull();
    const shown = await riderNotes(a, '101');
    expect(shown.map((line) => line.split(' — ')[0])).toEqual(Array.from({ length: 20 }, (_, i) => `Note ${21 - i}`));
    const newest = (await a.get('/admin/riders/101').expect(200)).text;
    const older = one(newest, 'section[aria-labelledby="notes-title"] .section-links a').getAttribute('href')!;
    expect(older).toMatch(/^\/admin\/riders\/101\?rider_notes_before=\d+#notes-title$/);
    expect(
      (await riderNotes(a, '101'.concat(older.slice('/admin/riders/101'.length).split('#')[0]))).map((l) => l.split(' — ')[0]),
    ).toEqual(['Note 1']);
    await a.get('/admin/riders/101?rider_notes_before=abc').expect(400);
  });

  it('is refused without the session’s token and across 3PLs; the table holds its bounds whoever writes', async () => {
    const scoped = await signIn('swift-lead');
    const page = (await scoped.get('/admin/riders/101').expect(200)).text;
    const token = csrfToken(page);
    await scoped.post('/admin/riders/101/notes').type('form').send({ note: 'no token' }).expect(403);
    // 105 is of another 3PL: no such rider, and no such handling, for this supervisor.
    await scoped.post('/admin/riders/105/notes').type('form').send({ _csrf: token, note: 'not mine' }).expect(404);
    const { rows } = await t.pool.query(`SELECT id FROM access.attention_handled WHERE subject_id = 105 LIMIT 1`);
    await scoped.post(`/admin/attention/handled/${rows[0].id}/notes`).type('form').send({ _csrf: token, note: 'not mine' }).expect(404);
    await scoped.post('/admin/attention/handled/987654321/notes').type('form').send({ _csrf: token, note: 'none' }).expect(404);
    await scoped.post('/admin/riders/9x/notes').type('form').send({ _csrf: token, note: 'none' }).expect(404);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM access.supervisor_notes WHERE note = 'not mine'`)).rows[0].n).toBe(0);
    // The database holds the bounds too: an empty note, one too long, one about nothing.
    const [{ id }] = (await t.owner.query(`SELECT id FROM access.supervisors WHERE username = 'swift-lead'`)).rows;
    for (const [rider, note] of [
      [101, ' '],
      [101, 'x'.repeat(2001)],
      [null, 'about nothing'],
    ]) {
      await expect(
        t.owner.query('INSERT INTO access.supervisor_notes (rider_id, note, written_by) VALUES ($1, $2, $3)', [rider, note, id]),
      ).rejects.toThrow(/violates check constraint/);
    }
  });
});

describe('a note on a rider saved after its session ended', () => {
  it('comes back after sign-in, filled in, and is saved on the rider then', async () => {
    const b = await signIn('lead-b');
    const page = (await b.get('/admin/riders/107').expect(200)).text;
    const form = hiddenFields(page, 'form.rider-note-form');
    await t.owner.query(`UPDATE access.sessions SET expire = now() - interval '1 second' WHERE sess->'supervisor'->>'username' = 'lead-b'`);
    const note = 'Met the rider at the depot: helmet checked.';
    const ended = await b
      .post('/admin/riders/107/notes')
      .type('form')
      .send({ ...form, note })
      .expect(401);
    const carried = hiddenFields(ended.text, 'form.sign-in-form');
    expect(carried).toMatchObject({ kept_action: '/admin/riders/107/notes', kept_subject: '107', kept_note: note });
    expect(await notesOf('107')).toEqual([]);
    const signedIn = await b
      .post('/admin/sign-in')
      .type('form')
      .send({ ...carried, username: 'lead-b', password })
      .expect(303);
    expect(signedIn.headers.location).toBe('/admin/kept-note');
    const kept = (await b.get('/admin/kept-note').expect(200)).text;
    expect(textOf(one(kept, 'h1'))).toBe('Not yet saved: your note');
    expect(textOf(one(kept, 'textarea#retry-note'))).toBe(note);
    expect(buttonsOf(kept)).toEqual({ Save: '/admin/riders/107/notes' });
    await b
      .post('/admin/riders/107/notes')
      .type('form')
      .send({ ...hiddenFields(kept, 'form.retry-form'), note })
      .expect(303);
    expect(await notesOf('107')).toEqual([{ note, rule: null, handling_id: null, username: 'lead-b' }]);
  });
});

describe('the notice after Mark handled', () => {
  it('carries Undo for one row and for a batch, and a link to the rule’s handled rows', async () => {
    const a = await signIn('lead-b');
    const unchecked = async () => {
      const html = (await a.get('/admin/attention/unchecked').expect(200)).text;
      return { html, ids: [...parseHtml(html).querySelectorAll('tbody td[data-label="Rider ID"]')].map((td) => textOf(td)) };
    };
    const before = (await unchecked()).ids;
    expect(before).toContain('107');
    expect((await markHandled(a, 'unchecked', '107', 'Phoned: patrol booked.')).status).toBe(303);
    let page = (await a.get('/admin/attention').expect(200)).text;
    expect(one(page, '.notice.flash a').getAttribute('href')).toBe('/admin/attention/unchecked/handled');
    const [{ id }] = (await t.pool.query(`SELECT max(id) AS id FROM access.attention_handled WHERE subject_id = 107`)).rows;
    const undo = one(page, '.notice.flash form');
    expect(undo.getAttribute('action')).toBe(`/admin/attention/handled/${id}/undo`);
    await a.post(undo.getAttribute('action')!).type('form').send(hiddenFields(page, '.notice.flash form')).expect(303);
    expect((await unchecked()).ids).toEqual(before);

    // A batch of every row the list selects: its notice undoes the whole batch.
    await markAllHandled(a, 'unchecked', (await unchecked()).html, 'Patrols booked for all.');
    page = (await a.get('/admin/attention/unchecked').expect(200)).text;
    expect(textOf(one(page, 'p[role="status"]'))).toMatch(/^Marked handled: \d+ rows? of “Riders not checked lately”, with one note\./);
    expect(parseHtml(page).querySelectorAll('tbody td[data-label="Rider ID"]')).toHaveLength(0);
    const batchUndo = one(page, '.notice.flash form');
    expect(batchUndo.getAttribute('action')).toMatch(/^\/admin\/attention\/batches\/\d+\/undo$/);
    await a.post(batchUndo.getAttribute('action')!).type('form').send(hiddenFields(page, '.notice.flash form')).expect(303);
    expect((await unchecked()).ids).toEqual(before);
  });
});

describe('a batch sent after its session ended', () => {
  it('comes back after sign-in with its note, its ticked rows and its filters, and is confirmed then', async () => {
    expect(KEPT_TICKED_MAX).toBe(TICKED_MAX);
    const b = await signIn('lead-b');
    const list = (await b.get('/admin/attention/unchecked').expect(200)).text;
    const ticked = [...parseHtml(list).querySelectorAll('tbody td[data-label="Rider ID"]')].map((td) => textOf(td)).slice(0, 2);
    expect(ticked).toHaveLength(2);
    const form = hiddenFields(list, 'form#batch-form');
    const fields = { ...form, which: 'ticked', subjects: ticked, note: 'Both called: patrols booked. تم' };
    await t.owner.query(`UPDATE access.sessions SET expire = now() - interval '1 second' WHERE sess->'supervisor'->>'username' = 'lead-b'`);
    const before = Number((await t.pool.query(`SELECT count(*) FROM access.attention_handled`)).rows[0].count);
    const ended = await b.post('/admin/attention/unchecked/batch').type('form').send(fields).expect(401);
    const carried = hiddenFields(ended.text, 'form.sign-in-form');
    expect(carried).toMatchObject({ kept_action: '/admin/attention/unchecked/batch', kept_which: 'ticked', kept_note: fields.note });
    expect([...parseHtml(ended.text).querySelectorAll('input[name="kept_subjects"]')].map((i) => i.getAttribute('value'))).toEqual(ticked);
    const signedIn = await b
      .post('/admin/sign-in')
      .type('form')
      .send({ ...carried, kept_subjects: ticked, username: 'lead-b', password })
      .expect(303);
    expect(signedIn.headers.location).toBe('/admin/kept-note');
    const kept = (await b.get('/admin/kept-note').expect(200)).text;
    expect(textOf(one(kept, 'textarea#batch-note'))).toBe(fields.note);
    const again = { ...hiddenFields(kept, 'form.retry-form'), subjects: ticked, note: fields.note };
    expect(again).toMatchObject({ which: 'ticked', back: form.back });
    const confirm = await b.post('/admin/attention/unchecked/batch').type('form').send(again).expect(200);
    expect(textOf(one(confirm.text, '.confirm-box'))).toMatch(/^Mark 2 riders of “Riders not checked lately” handled/);
    await b
      .post('/admin/attention/unchecked/batch')
      .type('form')
      .send({ ...hiddenFields(confirm.text, 'form.retry-form'), subjects: ticked, note: fields.note, confirm: 'yes' })
      .expect(303);
    expect(Number((await t.pool.query(`SELECT count(*) FROM access.attention_handled`)).rows[0].count)).toBe(before + 2);
    await t.owner.query(
      `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND note = $1`,
      [fields.note],
    );
  });
});

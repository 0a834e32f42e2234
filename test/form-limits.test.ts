// A request over a limit of the supervisors' forms is answered on its form with the reason, the text kept
// (src/admin/form-body.ts, the note's and the selection's checks): a note too long, too many ticked rows,
// a batch with none ticked; only a body larger than any form holds is refused unread, with the way back.
import { createSupervisor } from '../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, hiddenFields, one, textOf } from './support/html';
import { signIn as signInAs, type Agent } from './support/attention-scenario';

let t: TestApp;
const password = 'limits-pass-12345';

beforeAll(async () => {
  t = await testAppWithAuth('limits');
  await createSupervisor(t.owner, { username: 'limits-lead', password });
});
afterAll(() => t.close());

const signIn = (): Promise<Agent> => signInAs(t, 'limits-lead', password);
const written = async () =>
  Number(
    (await t.owner.query(`SELECT (SELECT count(*) FROM access.attention_handled) + (SELECT count(*) FROM access.supervisor_notes) AS n`))
      .rows[0].n,
  );

it('reads a note far over its limit and refuses it beside its text, with its length', async () => {
  const a = await signIn();
  const page = (await a.get('/admin/attention').expect(200)).text;
  const family = '👨‍👩‍👧‍👦'; // 7 code points, 25 bytes, 75 once percent-encoded
  const note = family.repeat(700);
  const before = await written();
  const res = await a
    .post('/admin/attention/unchecked/handled')
    .type('form')
    .send({ _csrf: csrfToken(page), subject: '107', note, back: '/admin/attention#unchecked' })
    .expect(400);
  expect(textOf(one(res.text, '#retry-note-error'))).toBe('must be at most 2,000 characters (a line break counts one); it has 4,900');
  expect(one(res.text, 'textarea#retry-note').textContent).toBe(note);
  const onRider = await a
    .post('/admin/riders/107/notes')
    .type('form')
    .send({ _csrf: csrfToken(page), note })
    .expect(400);
  expect(one(onRider.text, 'textarea#retry-note').textContent).toBe(note);
  expect(await written()).toBe(before);
});

it('refuses more ticked rows than a page holds on the batch form, and a batch with none ticked on its list', async () => {
  const a = await signIn();
  const list = (await a.get('/admin/attention/unchecked').expect(200)).text;
  const fields = hiddenFields(list, 'form#batch-form');
  const many = Array.from({ length: 501 }, (_, i) => String(1000 + i));
  const over = await a
    .post('/admin/attention/unchecked/batch')
    .type('form')
    .send({ ...fields, which: 'ticked', subjects: many, note: 'All booked.' })
    .expect(400);
  expect(textOf(one(over.text, '.error-summary'))).toContain('are at most 500 ticked rows (a page’s most); 501 were sent');
  expect(textOf(one(over.text, 'textarea'))).toBe('All booked.');

  const none = await a
    .post('/admin/attention/unchecked/assign')
    .type('form')
    .send({ ...fields, which: 'ticked', assignee: 'limits-lead' })
    .expect(303);
  expect(none.headers.location).toBe(fields.back);
  const back = (await a.get(fields.back).expect(200)).text;
  expect(textOf(one(back, '.notice.refused p[role="alert"]'))).toBe(
    'Nothing was given to anyone: no row was ticked. Tick rows in the table, or choose all the rows the filters select.',
  );
});

it('refuses unread a form larger than any holds, saying what the forms take and leading back to the page it came from', async () => {
  const a = await signIn();
  const list = (await a.get('/admin/attention/unchecked').expect(200)).text;
  const fields = hiddenFields(list, 'form#batch-form');
  const res = await a
    .post('/admin/attention/unchecked/batch')
    .set('Referer', 'http://127.0.0.1/admin/attention/unchecked?3pl=Swift%20%26%20Co')
    .type('form')
    .send({ ...fields, which: 'ticked', subjects: Array.from({ length: 10001 }, (_, i) => String(i + 1)), note: 'x' })
    .expect(413);
  expect(textOf(one(res.text, '.error-page h1 + p'))).toBe(
    'Nothing was saved: the form sent was larger than this form takes (at most 500 ticked rows and a note of at most 2,000 characters).',
  );
  expect(one(res.text, '.error-page a').getAttribute('href')).toBe('/admin/attention/unchecked?3pl=Swift%20%26%20Co');
  const note = await a
    .post('/admin/riders/107/notes')
    .type('form')
    .send({ _csrf: csrfToken(list), note: 'x'.repeat(140000) })
    .expect(413);
  expect(textOf(one(note.text, '.error-page h1 + p'))).toBe(
    'Nothing was saved: the form sent was larger than this form takes (a note of at most 2,000 characters).',
  );
});

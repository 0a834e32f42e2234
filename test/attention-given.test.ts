// Each supervisor sees their own work first (src/admin/given.ts): "Given to you" on the overview and on
// Needs attention counts the rows a lead gave them (listed, not handled), each count leading to them;
// the queue's rows show whom each was given to; By 3PL labels its figures for a phone's stacked cells.
import { createSupervisor } from '../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, one, parseHtml, textOf } from './support/html';
import { addAttentionRows, markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';

let t: TestApp;
const password = 'given-pass-12345';

beforeAll(async () => {
  t = await testAppWithAuth('given');
  await createSupervisor(t.owner, { username: 'lead', password });
  await createSupervisor(t.owner, { username: 'amina', password });
  await addAttentionRows(t);
});
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
/** "Given to you" as a page shows it: each rule's link text and where it leads, or its empty line. */
function givenPanel(html: string) {
  const panel = one(html, 'section.given');
  return {
    links: [...panel.querySelectorAll('.attention-index a')].map((a) => [textOf(a), a.getAttribute('href')]),
    empty: panel.querySelector('p.empty') ? textOf(panel.querySelector('p.empty')!) : undefined,
  };
}
/** The rows of a rule's section on Needs attention: rider ID and whom the row was given to. */
function owners(html: string, rule: string) {
  return [...parseHtml(html).querySelectorAll(`section#${rule} table.list tbody tr`)].map((tr) => [
    textOf(tr.querySelector('td[data-label="Rider ID"]')!),
    textOf(tr.querySelector('td[data-label="Assigned to"]')!),
  ]);
}

it('counts the rows given to a supervisor on the overview and on Needs attention, shows the owner on each row, and empties as they are handled', async () => {
  const [lead, amina] = await Promise.all([signIn('lead'), signIn('amina')]);
  const none = givenPanel((await amina.get('/admin').expect(200)).text);
  expect(none).toEqual({ links: [], empty: 'No row is given to you now. A lead gives rows from a rule’s list (“Give them”).' });

  const list = (await lead.get('/admin/attention/unchecked').expect(200)).text;
  const listed = [...parseHtml(list).querySelectorAll('tbody td[data-label="Rider ID"]')].map((td) => textOf(td));
  expect(listed.length).toBeGreaterThanOrEqual(2);
  const ticked = listed.slice(0, 2);
  await lead
    .post('/admin/attention/unchecked/assign')
    .type('form')
    .send({ _csrf: csrfToken(list), back: '/admin/attention/unchecked', which: 'ticked', subjects: ticked, assignee: 'amina' })
    .expect(303);
  // A row of another rule given too, so that the panel lists two rules.
  const overdue = (await lead.get('/admin/attention/overdue-items').expect(200)).text;
  const overdueFirst = textOf(one(overdue, 'tbody td[data-label="Rider ID"]'));
  await lead
    .post('/admin/attention/overdue-items/assign')
    .type('form')
    .send({
      _csrf: csrfToken(overdue),
      back: '/admin/attention/overdue-items',
      which: 'ticked',
      subjects: [overdueFirst],
      assignee: 'amina',
    })
    .expect(303);

  const expected = [
    ['1 Items past their exchange day', '/admin/attention/overdue-items?owner=amina'],
    ['2 Riders not checked lately', '/admin/attention/unchecked?owner=amina'],
  ];
  expect(givenPanel((await amina.get('/admin').expect(200)).text).links).toEqual(expected);
  const queue = (await amina.get('/admin/attention').expect(200)).text;
  expect(givenPanel(queue).links).toEqual(expected);
  // The count leads to exactly those rows.
  const mine = (await amina.get('/admin/attention/unchecked?owner=amina').expect(200)).text;
  expect([...parseHtml(mine).querySelectorAll('tbody td[data-label="Rider ID"]')].map((td) => textOf(td)).sort()).toEqual(
    [...ticked].sort(),
  );
  // Everyone sees whom each row of the queue was given to; the lead has none of their own.
  for (const html of [queue, (await lead.get('/admin/attention').expect(200)).text]) {
    for (const [rider, owner] of owners(html, 'unchecked')) expect([rider, owner]).toEqual([rider, ticked.includes(rider) ? 'amina' : '–']);
  }
  expect(givenPanel((await lead.get('/admin/attention').expect(200)).text).links).toEqual([]);

  // Handled: no longer hers to do.
  expect((await markHandled(amina, 'unchecked', ticked[0], 'Patrol booked.')).status).toBe(303);
  expect(givenPanel((await amina.get('/admin').expect(200)).text).links).toEqual([
    ['1 Items past their exchange day', '/admin/attention/overdue-items?owner=amina'],
    ['1 Riders not checked lately', '/admin/attention/unchecked?owner=amina'],
  ]);
  const { rows } = await t.pool.query(
    `SELECT count(*)::int AS n FROM access.attention_owners o JOIN access.supervisors s ON s.id = o.assigned_to WHERE s.username = 'amina'`,
  );
  expect(rows[0].n).toBe(3); // still given: the count is of rows still to do
});

it('labels each figure of By 3PL with its rule, the "All" row too', async () => {
  const lead = await signIn('lead');
  const html = (await lead.get('/admin/attention').expect(200)).text;
  const titles = [...one(html, 'table.by-3pl thead').querySelectorAll('th')].slice(1).map((th) => textOf(th));
  expect(titles.length).toBeGreaterThan(1);
  for (const tr of one(html, 'table.by-3pl').querySelectorAll('tbody tr, tfoot tr')) {
    expect([...tr.querySelectorAll('td')].map((td) => td.getAttribute('data-label'))).toEqual(titles);
  }
});

it('picks whom the rows were given to from a select of the supervisors who see them; a name nobody has is said so', async () => {
  const lead = await signIn('lead');
  const html = (await lead.get('/admin/attention/unchecked').expect(200)).text;
  const options = [...one(html, 'select[name="owner"]').querySelectorAll('option')].map((o) => [o.getAttribute('value'), textOf(o)]);
  expect(options).toEqual([
    ['', 'Any'],
    ['unassigned', 'Unassigned'],
    ['amina', 'amina'],
    ['lead', 'lead'],
  ]);
  const typo = (await lead.get('/admin/attention/unchecked?owner=amnia').expect(200)).text;
  expect(textOf(one(typo, 'select[name="owner"] option[selected]'))).toBe('amnia (no supervisor of this name)');
  expect(parseHtml(typo).querySelectorAll('tbody td[data-label="Rider ID"]')).toHaveLength(0);
});

it('says when Needs attention is asked for a 3PL nobody has, or a day after today', async () => {
  const lead = await signIn('lead');
  const nope = (await lead.get('/admin/attention?3pl=Nope%20Ltd').expect(200)).text;
  expect(textOf(one(nope, 'p.notice[role="alert"]'))).toBe(
    'No 3PL you can see is named “Nope Ltd”: every count below is of no rows. Pick a 3PL in the form, or see all 3PLs.',
  );
  expect(
    parseHtml((await lead.get('/admin/attention?3pl=Swift%20%26%20Co').expect(200)).text).querySelector('p.notice[role="alert"]'),
  ).toBeNull();
  const { rows } = await t.pool.query(
    `SELECT to_char(current_date + 30, 'YYYY-MM-DD') AS later, to_char(current_date, 'YYYY-MM-DD') AS today`,
  );
  const later = (await lead.get(`/admin/attention?as_of=${rows[0].later}`).expect(200)).text;
  expect(textOf(one(later, 'p.notice[role="status"]'))).toBe(
    `${rows[0].later} is after today (${rows[0].today}): the counts are what the rules would find at the end of that day if nothing happened before it, a projection. Back to today`,
  );
  expect(parseHtml((await lead.get('/admin/attention').expect(200)).text).querySelector('p.notice[role="status"]')).toBeNull();
});

it('records who gave which row to whom, and who took it back, in the rider’s history', async () => {
  const lead = await signIn('lead');
  const list = (await lead.get('/admin/attention/unchecked').expect(200)).text;
  const rider = textOf(one(list, 'tbody td[data-label="Rider ID"]'));
  const give = (assignee: string) =>
    lead
      .post('/admin/attention/unchecked/assign')
      .type('form')
      .send({ _csrf: csrfToken(list), back: '/admin/attention/unchecked', which: 'ticked', subjects: [rider], assignee })
      .expect(303);
  await give('amina');
  await give('lead');
  await give('');
  const page = (await lead.get(`/admin/riders/${rider}`).expect(200)).text;
  const lines = [...parseHtml(page).querySelectorAll('ul.gives li')].map((li) => textOf(li).replace(/^\d{4}-\d\d-\d\d \d\d:\d\d: /, ''));
  expect(lines.slice(0, 3)).toEqual([
    'lead took back “Riders not checked lately”',
    'lead gave “Riders not checked lately” to lead',
    'lead gave “Riders not checked lately” to amina',
  ]);
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM access.attention_gives WHERE subject_id = $1`, [rider]);
  expect(rows[0].n).toBe(lines.length);
});

it('links each rule’s list to its handled rows, where Undo is', async () => {
  const lead = await signIn('lead');
  for (const rule of ['failing-checks', 'overdue-items', 'unchecked']) {
    const html = (await lead.get(`/admin/attention/${rule}`).expect(200)).text;
    expect(one(html, 'nav.owner-views li.handled-link a').getAttribute('href')).toBe(`/admin/attention/${rule}/handled`);
  }
});

it('shows the rows given to a supervisor across the rules on one page', async () => {
  const [lead, amina] = await Promise.all([signIn('lead'), signIn('amina')]);
  await t.owner.query(`DELETE FROM access.attention_owners`);
  const list = (await lead.get('/admin/attention/unchecked').expect(200)).text;
  const ticked = [...parseHtml(list).querySelectorAll('tbody td[data-label="Rider ID"]')].map((td) => textOf(td)).slice(0, 2);
  await lead
    .post('/admin/attention/unchecked/assign')
    .type('form')
    .send({ _csrf: csrfToken(list), back: '/admin/attention/unchecked', which: 'ticked', subjects: ticked, assignee: 'amina' })
    .expect(303);
  const home = (await amina.get('/admin').expect(200)).text;
  expect(one(home, 'section.given .section-links a').getAttribute('href')).toBe('/admin/attention?mine=1');
  const page = (await amina.get('/admin/attention?mine=1').expect(200)).text;
  expect(textOf(one(page, 'h1'))).toBe('Needs attention: given to you');
  expect([...parseHtml(page).querySelectorAll('section.panel.attention')].map((s) => s.getAttribute('id'))).toEqual([
    'failing-checks',
    'overdue-items',
    'unchecked',
  ]);
  expect(owners(page, 'unchecked').sort()).toEqual(ticked.map((id) => [id, 'amina']).sort());
  expect(owners(page, 'failing-checks')).toEqual([]);
  expect(textOf(one(page, '.attention-index a[href="#unchecked"] .figure'))).toBe('2');
  expect(parseHtml(page).querySelector('table.by-3pl')).toBeNull();
  // The lead, given none, sees none there.
  expect(owners((await lead.get('/admin/attention?mine=1').expect(200)).text, 'unchecked')).toEqual([]);
});

it('marks on the rider page the open point a note keeps off the queue, and no other', async () => {
  const lead = await signIn('lead');
  const list = (await lead.get('/admin/attention/unchecked').expect(200)).text;
  const rider = textOf(one(list, 'tbody td[data-label="Rider ID"]'));
  const points = async () =>
    [...parseHtml((await lead.get(`/admin/riders/${rider}`).expect(200)).text).querySelectorAll('section.open-points li')].map((li) =>
      textOf(li),
    );
  const before = await points();
  expect(before.some((line) => line.includes('Handled'))).toBe(false);
  expect((await markHandled(lead, 'unchecked', rider, 'Patrol booked for Monday.')).status).toBe(303);
  const after = await points();
  expect(after).toHaveLength(before.length);
  const marked = after.filter((line) => / Handled by lead on \d{4}-\d\d-\d\d \d\d:\d\d, off the queue$/.test(line));
  expect(marked).toHaveLength(1);
  expect(before).toContain(marked[0].replace(/ Handled by .*$/, ''));
  await t.owner.query(
    `UPDATE access.attention_handled SET undone_at = now(), undone_by = handled_by WHERE undone_at IS NULL AND subject_id = $1`,
    [rider],
  );
  expect((await points()).some((line) => line.includes('Handled'))).toBe(false);
});

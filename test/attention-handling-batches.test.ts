// "Needs attention" as a work queue, many rows at once (src/admin/handling.ts): ticked rows or all the
// rows a filter selects handled with one note and one Undo, and rows given to a supervisor. On a copy of
// the fixture of its own, signed in for real, as of today (test/support/attention-handling.ts).
import type { TestApp } from './support/app';
import { csrfToken, hiddenFields, one, parseHtml, tableRows, textOf } from './support/html';
import { markAllHandled, markHandled, signIn as signInAs, type Agent } from './support/attention-scenario';
import { countHandled, handlingApp, password } from './support/attention-handling';
import { confirmedCount, newestBatchUndo } from '../bench/admin-queue';

let t: TestApp;

beforeAll(async () => ({ t } = await handlingApp('handlingBatches')));
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
const handledCount = () => countHandled(t);

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

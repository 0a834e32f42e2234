// What a supervisor types is never lost, in real Chromium at a desk's and a phone's size: a note typed
// while a new check takes its row off "Needs attention" comes back with a way to save it on the rider;
// a note typed while the session ends comes back after signing in again, and is saved.
import type { Page } from 'playwright-core';
import { compact } from '../../src/admin/queue-trend';
import { createSupervisor } from '../../src/auth/supervisors';
import { testAppWithAuth } from '../support/app';
import { axeViolations, useServedApp } from '../support/browser';
import { applied } from '../support/rolled-back';

jest.setTimeout(120000);

const username = `typist-${process.pid}`;
const password = 'typist-pass-12345';
const served = useServedApp(async () => {
  const t = await testAppWithAuth('notesBrowser');
  await createSupervisor(t.owner, { username, password });
  return t;
});

const SIZES = [
  { width: 1366, height: 900 },
  { width: 390, height: 844 },
];

async function signedIn(size: { width: number; height: number }, next = '/admin/attention'): Promise<Page> {
  const context = await served.browser.newContext({ bypassCSP: true, viewport: size });
  const page = await context.newPage();
  await page.goto(`${served.base}/admin/sign-in?next=${encodeURIComponent(next)}`);
  await signInOn(page);
  return page;
}
async function signInOn(page: Page) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.waitForLoadState('load');
}
const overflow = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;
const notesOf = async (rider: string) =>
  (await served.t.pool.query(`SELECT note, rule FROM access.supervisor_notes WHERE rider_id = $1 ORDER BY id`, [rider])).rows;

describe('a note typed while its row leaves the queue', () => {
  it.each(SIZES)('is offered back and saved on the rider (%o)', async (size) => {
    const page = await signedIn(size);
    const row = page.locator('section#unchecked tbody tr').first();
    const rider = (await row.locator('td[data-label="Rider ID"]').innerText()).trim();
    await row.locator('summary').click();
    const note = `Rang the rider at ${size.width}px: patrol booked for Monday. اتصلت بالسائق`;
    await row.locator('textarea[name="note"]').fill(note);
    // Meanwhile a patrol checks the rider: the row leaves "Riders not checked lately".
    await served.t.owner.query(
      `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
       VALUES ((SELECT max(id) + 1 FROM patrol_checks), $1, 1, now() - interval '1 minute', true, true, true)`,
      [rider],
    );
    await applied(served.t.owner);
    await Promise.all([page.waitForEvent('framenavigated'), row.getByRole('button', { name: 'Save' }).click()]);
    await page.waitForLoadState('load');
    expect(await page.locator('.error-summary h2').innerText()).toMatch(
      /^Nothing was saved: .+ is no longer under “Riders not checked lately”$/,
    );
    expect(await page.locator('textarea#retry-note').inputValue()).toBe(note);
    expect(await overflow(page)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Save it on the rider as a note' }).click()]);
    await page.waitForLoadState('load');
    expect(await page.locator('p[role="status"]').innerText()).toMatch(/^Saved as a note on .+: it is under “Supervisors’ notes”/);
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('link', { name: 'See it on the rider’s page' }).click()]);
    await page.waitForLoadState('load');
    expect(await page.locator('ul.rider-notes li').first().innerText()).toContain(note);
    expect(await overflow(page)).toBe(0);
    expect(await notesOf(rider)).toEqual([{ note, rule: 'unchecked' }]);
    await page.context().close();
  });
});

describe('a note typed while the session ends', () => {
  it.each(SIZES)('comes back after signing in again and is saved (%o)', async (size) => {
    const rider = size.width > 1000 ? '101' : '107';
    const page = await signedIn(size, `/admin/riders/${rider}`);
    const note = `Met the rider at the depot (${size.width}px): the helmet is fine.`;
    await page.getByLabel('A note on this rider').fill(note);
    // The idle timeout passes while the note is typed.
    await served.t.owner.query(`DELETE FROM access.sessions WHERE sess->'supervisor'->>'username' = $1`, [username]);
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Save the note' }).click()]);
    await page.waitForLoadState('load');
    expect(await page.locator('.notice').first().innerText()).toContain('Your session ended before the note was saved');
    expect(await notesOf(rider)).toEqual([]);
    await signInOn(page);
    expect(new URL(page.url()).pathname).toBe('/admin/kept-note');
    expect(await page.locator('textarea#retry-note').inputValue()).toBe(note);
    expect(await overflow(page)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Save', exact: true }).click()]);
    await page.waitForLoadState('load');
    expect(new URL(page.url()).pathname).toBe(`/admin/riders/${rider}`);
    expect(await page.locator('ul.rider-notes li').first().innerText()).toContain(note);
    expect(await notesOf(rider)).toEqual([{ note, rule: null }]);
    await page.context().close();
  });
});

describe('the pages the team’s day touched, signed in as a colleague given a row', () => {
  it.each(SIZES)(
    'show her own rows first, By 3PL labelled and the trend as its table, clean under axe-core and no wider than the screen (%o)',
    async (size) => {
      const page = await signedIn(size, '/admin');
      // A row given to this supervisor and a note on a rider, so that their panels and lists are drawn.
      await served.t.owner.query(
        `INSERT INTO access.attention_owners (rule, subject_id, assigned_to, assigned_by)
       SELECT 'overdue-items', 101, id, id FROM access.supervisors WHERE username = $1 ON CONFLICT DO NOTHING`,
        [username],
      );
      // Her count on the overview, and her row on one page.
      await page.goto(`${served.base}/admin`);
      expect(await page.locator('section.given .attention-index a').allInnerTexts()).toEqual(['1 Items past their exchange day']);
      await page.locator('section.given').getByRole('link', { name: 'All of them on one page' }).click();
      await page.waitForURL(/\/admin\/attention\?mine=1$/);
      expect(await page.locator('section#overdue-items table.list td[data-label="Rider ID"]').allInnerTexts()).toEqual(['101']);
      // Needs attention: By 3PL's figures labelled where the phone hides the header row; the trend's figures
      // are the table's (in short on a phone).
      await page.goto(`${served.base}/admin/attention`);
      const label = await page.evaluate(`getComputedStyle(document.querySelector('table.by-3pl tbody td'), '::before').content`);
      expect(label).toBe(size.width < 700 ? '"Failing patrol checks"' : 'none');
      const shown = await page.locator(`section#unchecked .trend-${size.width < 700 ? 'short' : 'full'}`).allInnerTexts();
      const table = await page.locator('section#unchecked table.flow-table tbody tr td:last-child').allTextContents();
      expect(shown).toEqual(table.map((n) => (size.width < 700 ? compact(Number(n.replace(/,/g, ''))) : n)));
      for (const path of [
        '/admin',
        '/admin/attention',
        '/admin/attention?mine=1',
        '/admin/riders/101',
        '/admin/attention/overdue-items/handled',
      ]) {
        await page.goto(`${served.base}${path}`);
        expect({ path, violations: await axeViolations(page), overflow: await overflow(page) }).toEqual({
          path,
          violations: [],
          overflow: 0,
        });
      }
      await page.context().close();
    },
  );
});

// Bulk work in real Chromium at a desk's and a phone's size (public/admin/batch.js): one box ticks the
// page, a bar fixed at the screen's foot counts the ticked rows and leads to the batch form with its note
// focused, the notice after the batch undoes it, and a batch with nothing ticked is stopped at its form.
import type { Page } from 'playwright-core';
import { createSupervisor } from '../../src/auth/supervisors';
import { testAppWithAuth } from '../support/app';
import { axeViolations, useServedApp } from '../support/browser';

jest.setTimeout(120000);

const username = `bulk-${process.pid}`;
const password = 'bulk-pass-123456';
const served = useServedApp(async () => {
  const t = await testAppWithAuth('batchBrowser');
  await createSupervisor(t.owner, { username, password });
  return t;
});

async function signedIn(size: { width: number; height: number }): Promise<Page> {
  const context = await served.browser.newContext({ bypassCSP: true, viewport: size });
  const page = await context.newPage();
  await page.goto(`${served.base}/admin/sign-in?next=${encodeURIComponent('/admin/attention/unchecked')}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(/\/admin\/attention\/unchecked$/), page.getByRole('button', { name: 'Sign in' }).click()]);
  return page;
}
const listed = (page: Page) => page.locator('tbody td[data-label="Rider ID"]').allInnerTexts();
const live = async () =>
  Number(
    (await served.t.pool.query(`SELECT count(*) FROM access.attention_handled WHERE undone_at IS NULL AND superseded_at IS NULL`)).rows[0]
      .count,
  );

describe.each([
  { width: 1366, height: 900 },
  { width: 390, height: 844 },
])('a batch at %o', (size) => {
  it('ticks the page with one box, counts it at the screen’s foot, reaches the note in one click, and undoes from the notice', async () => {
    const page = await signedIn(size);
    const rows = await listed(page);
    expect(rows.length).toBeGreaterThan(1);
    const bar = page.locator('.batch-bar');
    expect(await bar.isVisible()).toBe(false);
    await page.getByLabel(`Tick every row of this page (${rows.length})`).check();
    expect(await page.locator('input[name="subjects"]:checked').count()).toBe(rows.length);
    expect(await bar.locator('[role="status"]').innerText()).toBe(`${rows.length} rows ticked`);
    // On the screen wherever the page is scrolled: fixed at its foot, inside its width.
    const box = (await bar.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(size.height + 1);
    expect(box.x + box.width).toBeLessThanOrEqual(size.width + 1);
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // One row unticked: the header box says some are, the count follows.
    await page.locator('input[name="subjects"]').first().uncheck();
    expect(await page.evaluate("document.getElementById('pick-all').indeterminate")).toBe(true);
    expect(await bar.locator('[role="status"]').innerText()).toBe(
      rows.length - 1 === 1 ? '1 row ticked' : `${rows.length - 1} rows ticked`,
    );

    await bar.getByRole('link', { name: 'Mark handled or give them' }).click();
    expect(await page.evaluate('document.activeElement.id')).toBe('batch-note');
    await page.keyboard.type('Patrols booked for these riders.');
    const before = await live();
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Mark handled…' }).click()]);
    await page.waitForLoadState('load');
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: `Mark ${rows.length - 1} handled` }).click()]);
    await page.waitForLoadState('load');
    expect(await live()).toBe(before + rows.length - 1);
    expect(await listed(page)).toEqual([rows[0]]);
    expect(await page.locator('p[role="status"]').innerText()).toMatch(
      /^Marked handled: \d+ rows of “Riders not checked lately”, with one note\. The rule’s handled rows$/,
    );
    await Promise.all([page.waitForEvent('framenavigated'), page.locator('.notice.flash').getByRole('button', { name: 'Undo' }).click()]);
    await page.waitForLoadState('load');
    expect(await live()).toBe(before);
    expect(await listed(page)).toEqual(rows);
    await page.context().close();
  });

  it('stops a batch of ticked rows with none ticked at its form, saying why', async () => {
    const page = await signedIn(size);
    await page.locator('#batch-note').fill('Nothing ticked yet.');
    await page.getByRole('button', { name: 'Give them' }).click();
    expect(await page.locator('#batch-which-error').innerText()).toBe(
      'No row is ticked: tick rows in the table, or choose all the rows the filters select.',
    );
    expect(new URL(page.url()).pathname).toBe('/admin/attention/unchecked');
    expect(await page.locator('#batch-note').inputValue()).toBe('Nothing ticked yet.');
    await page.context().close();
  });
});

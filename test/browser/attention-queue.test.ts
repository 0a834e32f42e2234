// "Needs attention" worked in real Chromium by a signed-in supervisor: a row marked handled with the
// keyboard alone, and the page, its open "Mark handled" form and the handled view clean under axe-core.
// On a copy of the fixture of its own (test/attention.test.ts adds rows to its copy meanwhile), as of today.
import type { Page } from 'playwright-core';
import { createSupervisor } from '../../src/auth/supervisors';
import { testAppWithAuth } from '../support/app';
import { axeViolations, useServedApp } from '../support/browser';
import { applied } from '../support/rolled-back';

jest.setTimeout(120000);

const username = `queue-${process.pid}`;
const password = 'queue-pass-12345';
const served = useServedApp(async () => {
  const t = await testAppWithAuth('attentionQueue');
  await createSupervisor(t.owner, { username, password });
  return t;
});

async function signedIn(): Promise<Page> {
  const context = await served.browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${served.base}/admin/sign-in?next=${encodeURIComponent('/admin/attention')}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/admin\/attention$/);
  return page;
}

const unchecked = (page: Page) => page.locator('section#unchecked tbody tr td[data-label="Rider ID"]').allInnerTexts();
const focused = (page: Page) =>
  page.evaluate(
    `(() => { const e = document.activeElement; return (e.closest('section') ? e.closest('section').id + ' ' : '') + e.tagName + ' ' + e.textContent.trim().slice(0, 40); })()`,
  ) as Promise<string>;

describe('Needs attention in a browser, signed in', () => {
  it('marks a row handled with the keyboard alone: the row leaves the list and the note is kept', async () => {
    const page = await signedIn();
    const before = await unchecked(page);
    expect(before.length).toBeGreaterThan(0);
    // Tab to the first "Mark handled" of the "not checked lately" rule.
    let stop = '';
    for (let i = 0; i < 300 && !/^unchecked SUMMARY Mark handled/.test(stop); i++) {
      await page.keyboard.press('Tab');
      stop = await focused(page);
    }
    expect(stop).toMatch(/^unchecked SUMMARY Mark handled/);
    await page.keyboard.press('Enter'); // opens the form
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^unchecked TEXTAREA/);
    await page.keyboard.type('Rang the rider: patrol booked.');
    // Past the "until" day, left empty (Chromium stops at its day, month and year in turn).
    for (let i = 0; i < 5 && (await focused(page)) !== 'unchecked BUTTON Save'; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('unchecked BUTTON Save');
    await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press('Enter')]);
    await page.waitForLoadState('load');
    // Back at the row after the one handled, not at the page's top.
    expect(page.url()).toBe(`${served.base}/admin/attention#row-unchecked-${before[1]}`);
    expect(await page.evaluate(`document.querySelector('#row-unchecked-${before[1]}').getBoundingClientRect().top < innerHeight`)).toBe(
      true,
    );
    expect(await unchecked(page)).toEqual(before.slice(1));
    const { rows } = await served.t.pool.query(
      `SELECT h.subject_id::text AS rider, h.note FROM access.attention_handled h JOIN access.supervisors s ON s.id = h.handled_by WHERE s.username = $1`,
      [username],
    );
    expect(rows).toEqual([{ rider: before[0], note: 'Rang the rider: patrol booked.' }]);
    await page.context().close();
  });

  it('fits an open "Mark handled" form in a phone screen', async () => {
    const page = await signedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('section#unchecked summary').first().click();
    const form = page.locator('section#unchecked details[open] form');
    for (const field of ['textarea', 'input[data-date]', 'button.date-button', 'button[type=submit]']) {
      const box = (await form.locator(field).boundingBox())!;
      expect({ field, right: Math.round(box.x + box.width) <= 390 }).toEqual({ field, right: true });
    }
    // Nothing in the rule's table is cut off inside its scrolling box either.
    const cut = await page.evaluate(
      `(() => { const w = document.querySelector('section#unchecked .table-wrap'); return w.scrollWidth - w.clientWidth; })()`,
    );
    expect(cut).toBeLessThanOrEqual(0);
    await page.context().close();
  });

  it('is clean under axe-core with a "Mark handled" form open, on a rule’s list and on its handled view', async () => {
    const page = await signedIn();
    await page.locator('section#overdue-items summary').first().click();
    expect(await axeViolations(page)).toEqual([]);
    for (const path of ['/admin/attention/overdue-items', '/admin/attention/unchecked/handled']) {
      await page.goto(`${served.base}${path}`);
      expect({ path, violations: await axeViolations(page) }).toEqual({ path, violations: [] });
    }
    await page.context().close();
  });

  it('gives back a refused form filled in, clean under axe-core, and saves it once corrected', async () => {
    const page = await signedIn();
    const form = page.locator('section#overdue-items details.row-action').first();
    await form.locator('summary').click();
    await form.getByLabel('Note').fill('Kit promised for Friday');
    // 30 February passes the field's pattern: only the server can refuse it.
    await form.locator('input[name="until"]').fill('2026-02-30');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('h1:has-text("Not marked handled")');
    expect(await page.getByLabel('Note').inputValue()).toBe('Kit promised for Friday');
    expect(await page.locator('.error-summary').innerText()).toContain('Until: must be a real calendar day written YYYY-MM-DD');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('input[name="until"]').fill('2099-03-02');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/admin\/attention/);
    expect(await page.locator('.notice').innerText()).toMatch(/^Marked handled: /);
    await page.context().close();
  });

  it('draws each row as a card on a phone: no sideways scroll, and every label held inside its cell', async () => {
    // Rider 105's last two checks failed, so "Failing patrol checks" has a row with its "Last check failed".
    await served.t.owner
      .query(`INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
      (9901, 105, 1, now() - interval '2 days', true, true, false), (9902, 105, 1, now() - interval '1 day', false, true, true)`);
    await applied(served.t.owner);
    const page = await signedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await expect(page.locator('#failing-checks td[data-label="Last check failed"]').first().isVisible()).resolves.toBe(true);
    // Each label laid out as the card draws it (its ::before's width and font) fits within its cell's height.
    const spilled = await page.evaluate(`[...document.querySelectorAll('section.attention tbody td')].flatMap((td) => {
      const label = getComputedStyle(td, '::before');
      if (label.content === 'none') return [];
      const probe = document.createElement('span');
      probe.textContent = td.dataset.label;
      Object.assign(probe.style, { position: 'absolute', display: 'block', width: label.width, font: label.font, lineHeight: label.lineHeight, visibility: 'hidden' });
      document.body.append(probe);
      const needed = probe.getBoundingClientRect().height;
      probe.remove();
      const box = td.getBoundingClientRect();
      return box.height + 0.5 < needed ? [td.dataset.label + ': ' + box.height + ' < ' + needed] : [];
    })`);
    expect(spilled).toEqual([]);
    // The long label does wrap at this width: the test would not see the fault otherwise.
    const lines = await page.evaluate(`(() => {
      const td = document.querySelector('#failing-checks td[data-label="Last check failed"]');
      const label = getComputedStyle(td, '::before');
      return Math.round(td.getBoundingClientRect().height / parseFloat(label.lineHeight));
    })()`);
    expect(lines).toBeGreaterThanOrEqual(2);
  });

  it('marks two ticked rows handled at once and gives a row to a supervisor, with the keyboard alone, clean under axe-core', async () => {
    const page = await signedIn();
    await page.goto(`${served.base}/admin/attention/unchecked`);
    const ids = await page.locator('table.list tbody tr td[data-label="Rider ID"]').allInnerTexts();
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(await axeViolations(page)).toEqual([]);
    const where = () =>
      page.evaluate(
        `(() => { const e = document.activeElement; return e.tagName + ' ' + (e.getAttribute('aria-label') || e.id || e.textContent.trim().slice(0, 30)); })()`,
      ) as Promise<string>;
    const tabTo = async (target: RegExp) => {
      for (let i = 0; i < 400 && !target.test(await where()); i++) await page.keyboard.press('Tab');
      expect(await where()).toMatch(target);
    };
    // Tick the first two rows (Space on a focused box), then write the note and send.
    await tabTo(/^INPUT Pick /);
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await tabTo(/^INPUT Pick /);
    await page.keyboard.press('Space');
    await tabTo(/^TEXTAREA batch-note$/);
    await page.keyboard.type('Patrols booked for both');
    await tabTo(/^BUTTON Mark handled…$/);
    await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press('Enter')]);
    await page.waitForLoadState('load');
    expect(await page.locator('.confirm-box').innerText()).toMatch(/^Mark 2 riders of “Riders not checked lately” handled/);
    expect(await axeViolations(page)).toEqual([]);
    await tabTo(/^BUTTON Mark 2 handled$/);
    await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press('Enter')]);
    await page.waitForLoadState('load');
    expect(await page.locator('p[role="status"]').innerText()).toMatch(/^Marked handled: 2 rows/);
    const left = await page.locator('table.list tbody tr td[data-label="Rider ID"]').allInnerTexts();
    expect(left).toEqual(ids.slice(2));

    // Give the first row left to oneself: tick it, choose the supervisor, "Give them".
    await tabTo(/^INPUT Pick /);
    await page.keyboard.press('Space');
    await tabTo(/^SELECT batch-assignee$/);
    expect(await page.locator('select#batch-assignee').inputValue()).toBe(username);
    await tabTo(/^BUTTON Give them$/);
    await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press('Enter')]);
    await page.waitForLoadState('load');
    expect(await page.locator('p[role="status"]').innerText()).toBe(`Given to ${username}: 1 row of “Riders not checked lately”.`);
    expect(await page.locator('table.list tbody tr').first().locator('td[data-label="Assigned to"]').innerText()).toBe(username);
    expect(await axeViolations(page)).toEqual([]);
    await served.t.owner.query(`DELETE FROM access.attention_owners`);
    await page.context().close();
  });
});

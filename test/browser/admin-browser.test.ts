import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { useAdminBrowser } from '../support/admin-browser';

// The admin pages in real headless Chromium (Debian's package, driven by playwright-core), on the
// demo data: the patrol checks list and finding a rider (test/support/admin-browser.ts). Filters picked
// by name: test/browser/admin-filters.test.ts; lists that fit their box, the keyboard and small screens:
// test/browser/admin-small-screens.test.ts.
jest.setTimeout(60000);

const { served, tab, url, count, total, cells } = useAdminBrowser();
let page: Page;
beforeEach(() => (page = tab.page));

describe('the patrol checks list in a browser', () => {
  it('applies a filter from the form: the table changes and the URL holds the filter', async () => {
    await page.goto(url('/admin/checks'));
    const before = await total();
    await page.getByLabel('ID valid').selectOption({ label: 'Failed' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/[?&]is_validation=0/);
    expect(await total()).toBe(await count('SELECT count(*) AS n FROM patrol_checks WHERE NOT id_valid'));
    expect(await total()).toBeLessThan(before);
    // Every row's result names the ID among what failed.
    expect((await cells('Result')).every((text) => /^Failed: .*ID/.test(text))).toBe(true);
    // The stylesheet loaded under the strict CSP.
    expect(await page.evaluate("getComputedStyle(document.querySelector('.site-header')).backgroundColor")).toBe('rgb(31, 78, 121)');
  });

  it('pages forward keeping the filters, and the back button returns to the same page', async () => {
    await page.goto(url('/admin/checks?is_validation=0'));
    const first = await cells('Check');
    await page.getByRole('link', { name: 'Next ›' }).first().click();
    await page.waitForURL(/page=2/);
    expect(page.url()).toContain('is_validation=0');
    const second = await cells('Check');
    expect(second).toHaveLength(25);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    // Every row's result names the ID among what failed.
    expect((await cells('Result')).every((text) => /^Failed: .*ID/.test(text))).toBe(true);
    await page.goBack();
    expect(await cells('Check')).toEqual(first);
    expect(await page.getByLabel('ID valid').inputValue()).toBe('0');
  });

  it('sorts by a column header and changes the page size, keeping the filters', async () => {
    await page.goto(url('/admin/checks?license_plate=0'));
    await page.getByRole('link', { name: /^Rider ID/ }).click();
    await page.waitForURL(/sort=rider_id/);
    const riders = (await cells('Rider ID')).map(Number);
    expect(riders).toEqual([...riders].sort((a, b) => a - b));
    await page.getByRole('link', { name: '50', exact: true }).click();
    await page.waitForURL(/per_page=50/);
    expect(page.url()).toMatch(/license_plate=0.*sort=rider_id|sort=rider_id.*license_plate=0/);
    expect(await cells('Check')).toHaveLength(50);
  });

  it('takes a day typed as YYYY-MM-DD, and a day picked from the calendar in the same form', async () => {
    await page.goto(url('/admin/checks'));
    const from = page.getByLabel('Checked from', { exact: true });
    expect(await from.getAttribute('placeholder')).toBe('YYYY-MM-DD');
    await from.fill('2026-10-01');
    // The calendar: the browser's own date picker behind the button (headless Chromium shows none, so
    // the day is chosen on the picker's input as the picker would), written back as YYYY-MM-DD.
    const calendar = page.getByRole('button', { name: 'Pick Checked to from a calendar' });
    await calendar.click();
    await page.locator('#f-check_date_to ~ input.date-picker').fill('2026-10-31');
    expect(await page.getByLabel('Checked to', { exact: true }).inputValue()).toBe('2026-10-31');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/check_date_to=2026-10-31/);
    expect(page.url()).toContain('check_date_from=2026-10-01');
    expect(await page.getByLabel('Checked from', { exact: true }).inputValue()).toBe('2026-10-01');
    expect(await total()).toBe(
      await count(`SELECT count(*) AS n FROM patrol_checks WHERE checked_at >= '2026-10-01' AND checked_at < '2026-11-01'`),
    );
  });

  it("opens a check's detail page", async () => {
    await page.goto(url('/admin/checks'));
    const id = (await cells('Check'))[0];
    await page.locator('tbody td[data-label="Check"] a').first().click();
    await expect(page.locator('h1').innerText()).resolves.toBe(`Patrol check ${id}`);
    await expect(page.getByRole('heading', { name: 'Questionnaire answers' }).isVisible()).resolves.toBe(true);
  });

  it('shows a bad value beside its field, with the rest of the page in place', async () => {
    await page.goto(url('/admin/checks'));
    await page.getByLabel('Rider', { exact: true }).fill('12.5');
    const [response] = await Promise.all([
      // The form's empty fields are first dropped from the address (303), then the page answers.
      page.waitForResponse((r) => /rider_id=12\.5/.test(r.url()) && r.status() !== 303),
      page.getByRole('button', { name: 'Apply filters' }).click(),
    ]);
    expect(response.status()).toBe(400);
    expect(new URL(page.url()).search).toBe('?rider_id=12.5');
    await expect(page.locator('#f-rider_id-error').innerText()).resolves.toBe('“12.5” must be an ID: a whole number, 1 or more');
    await expect(page.getByLabel('Rider', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByRole('navigation', { name: 'Main' }).isVisible()).resolves.toBe(true);
  });

  it('downloads every matching row as CSV, not one page', async () => {
    await page.goto(url('/admin/checks?sticker_validation=0'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /^Download all/ }).click()]);
    expect(download.suggestedFilename()).toBe('patrol-checks_sticker-validation-0.csv');
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines[0]).toBe('\uFEFFCheck,Checked at,Rider ID,Rider,3PL,Patroller ID,Patroller,Result,ID,Plate,Sticker,Score,Items');
    expect(lines).toHaveLength(1 + (await count('SELECT count(*) AS n FROM patrol_checks WHERE NOT sticker_valid')));
    expect(lines.length).toBeGreaterThan(26);
  });
});

describe('finding a rider in a browser', () => {
  it('searches by part of a name from any page and opens the rider', async () => {
    // A last name several riders share: the search lists them (one match would open the rider at once).
    const { rows } = await served.t.pool.query(`SELECT id, name FROM riders WHERE name ~ '^[A-Za-z]+ [A-Za-z]+$'
      AND (SELECT count(*) FROM riders o WHERE o.name ILIKE '%' || split_part(riders.name, ' ', 2) || '%') > 1 ORDER BY id LIMIT 1`);
    const [, last] = rows[0].name.split(' ');
    await page.goto(url('/admin/equipment/returns'));
    await page.getByRole('searchbox', { name: 'Find a rider' }).fill(last.toLowerCase());
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/search\?q=/);
    await page.getByRole('link', { name: rows[0].name }).first().click();
    await page.waitForURL(/\/admin\/riders\/\d+$/);
    await expect(page.locator('h1').innerText()).resolves.toBe(rows[0].name);
    await expect(page.getByRole('heading', { name: 'Equipment held now' }).isVisible()).resolves.toBe(true);
  });

  it('opens the rider at once when one rider matches the name', async () => {
    const { rows } = await served.t.pool.query(`SELECT r.id, r.name FROM riders r
      WHERE (SELECT count(*) FROM riders o WHERE o.name ILIKE '%' || r.name || '%') = 1 ORDER BY r.id LIMIT 1`);
    await page.goto(url('/admin'));
    await page.getByRole('searchbox', { name: 'Find a rider' }).fill(rows[0].name.toUpperCase().replace(/ /g, '   '));
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/admin/riders/${rows[0].id}$`));
    await expect(page.locator('h1').innerText()).resolves.toBe(rows[0].name);
  });

  it('goes straight to the rider when given an ID', async () => {
    await page.goto(url('/admin'));
    await page.getByRole('searchbox', { name: 'Find a rider' }).fill('100001');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/admin\/riders\/100001$/);
    await expect(page.locator('.facts').innerText()).resolves.toContain('100001');
  });
});

import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { createAdminRouter } from '../../src/admin/router';
import { projectRoot } from '../../src/paths';
import type { BrowserContext, Page } from 'playwright-core';
import { serve, testApp } from '../support/app';
import { useServedApp } from '../support/browser';

// The admin pages in real headless Chromium (Debian's package, driven by playwright-core), on the
// demo data: enough rows to page through.
jest.setTimeout(60000);

const served = useServedApp(() => testApp('demo'));
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeEach(async () => {
  context = await served.browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  // A blocked stylesheet, a CSP violation or a script error shows up here.
  problems = [];
  page.on('console', (message) => {
    // A 400 page is a test's intended outcome, which Chromium also reports as a failed load.
    if (message.type() === 'error' && !/status of 400/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
});
afterEach(async () => {
  await context.close();
  expect(problems).toEqual([]);
});

const url = (path: string) => `${served.base}${path}`;
const count = async (sql: string) => Number((await served.t.pool.query(sql)).rows[0].n);
const total = async () => Number((await page.locator('.summary strong').first().innerText()).replace(/,/g, ''));
const cells = (label: string) => page.locator(`tbody td[data-label="${label}"]`).allInnerTexts();

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

describe('lists that fit their box', () => {
  // How many lines each matching element's text takes, as Chromium lays it out: its text boxes' tops, a
  // line apart (a smaller font on the same line sits a little lower, not on a line of its own).
  const lines = (selector: string) =>
    page.evaluate(`[...document.querySelectorAll('${selector}')].map((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const tops = [...range.getClientRects()].map((r) => r.top).sort((a, b) => a - b);
      const gap = parseFloat(getComputedStyle(cell).fontSize) * 0.8;
      return [cell.dataset.label || cell.tagName, tops.filter((top, i) => i === 0 || top - tops[i - 1] > gap).length];
    })`) as Promise<Array<[string, number]>>;
  const wider = () =>
    page.evaluate(
      `[...document.querySelectorAll('.table-wrap > table')].filter((t) => t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5).length`,
    );

  it('draws 25 patrol checks at 1366 px within the table’s box, each name and 3PL on one line', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(url('/admin/checks'));
    expect(await page.locator('tbody tr').count()).toBe(25);
    expect(await wider()).toBe(0);
    const cells = await lines(
      'tbody td[data-label="Rider"], tbody td[data-label="Patroller"], tbody td[data-label="3PL"], tbody td[data-label="Checked at"]',
    );
    expect(cells).toHaveLength(100);
    expect(cells.filter(([, n]) => n > 1)).toEqual([]);
  });

  it.each([1366, 390])(
    'lists riders with what they hold now at %i px, the returned ones a count linked to their returns',
    async (width) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(url('/admin/equipment/riders'));
      expect(await wider()).toBe(0);
      const rows = (await page.evaluate(`[...document.querySelectorAll('tbody tr')].map((tr) => {
      const cell = (label) => tr.querySelector('td[data-label="' + label + '"]');
      return {
        id: cell('Rider ID').innerText.trim(),
        held: Number(cell('Held').innerText),
        items: cell('Items held now').querySelectorAll('li').length,
        returned: Number(cell('Returned').innerText),
        link: cell('Returned').querySelector('a')?.getAttribute('href') ?? null,
      };
    })`)) as Array<{ id: string; held: number; items: number; returned: number; link: string | null }>;
      expect(rows).toHaveLength(25);
      expect(rows.some((row) => row.returned > 0)).toBe(true);
      for (const row of rows)
        expect(row).toEqual({ ...row, items: row.held, link: row.returned ? `/admin/equipment/returns?rider_id=${row.id}` : null });
      // On a laptop each item held is one line: a row is as tall as what the rider holds now.
      if (width === 1366) expect((await lines('tbody td[data-label="Items held now"] li')).filter(([, n]) => n > 1)).toEqual([]);
    },
  );
});

describe('filters picked by name in a browser', () => {
  it('picks an item from the grouped select: the URL holds its ids, a chip names it, and removing the chip clears it', async () => {
    const [item] = (
      await served.t.pool.query(`SELECT p.id AS product_id, v.id AS variation_id, p.name || ' / ' || v.name AS label FROM assignments a
        JOIN products p ON p.id = a.product_id JOIN product_variations v ON v.id = a.variation_id GROUP BY 1, 2, 3 ORDER BY count(*) DESC LIMIT 1`)
    ).rows;
    await page.goto(url('/admin/equipment/assignments'));
    await page.getByLabel('Item').selectOption({ label: item.label });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`product_id=${item.product_id}&variation_id=${item.variation_id}$`));
    expect(new Set(await cells('Item'))).toEqual(new Set([item.label]));
    expect(await total()).toBe(await count(`SELECT count(*) AS n FROM assignments WHERE variation_id = ${item.variation_id}`));
    await expect(page.locator('.chips li').textContent()).resolves.toBe(`Item: ${item.label} ×Remove the filter Item`);
    expect(await page.getByLabel('Item').inputValue()).toBe(`${item.product_id}:${item.variation_id}`);
    await page.getByRole('link', { name: 'Remove the filter Item' }).click();
    await page.waitForURL(/\/admin\/equipment\/assignments$/);
    expect(await page.locator('.chips').count()).toBe(0);
  });

  it('narrows the item list as one types, words in any order, and Enter applies the first item left', async () => {
    const [item] = (
      await served.t.pool.query(`SELECT p.id AS product_id, v.id AS variation_id, p.name AS product, v.name AS variation FROM assignments a
        JOIN products p ON p.id = a.product_id JOIN product_variations v ON v.id = a.variation_id GROUP BY 1, 2, 3, 4 ORDER BY count(*) DESC LIMIT 1`)
    ).rows;
    await page.goto(url('/admin/equipment/assignments'));
    const all = await page.locator('select#f-item option').count();
    // The variation's name, then the product's: in any order.
    const words = `${item.variation} ${item.product}`.toLocaleLowerCase();
    await page.getByLabel('Narrow the list below by typing').fill(words);
    const left = (await page.evaluate(
      `[...document.querySelectorAll('select#f-item option')].filter((o) => !o.hidden && o.value).map((o) => o.parentElement.label + ' ' + o.textContent)`,
    )) as string[];
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(all - 1);
    for (const text of left) for (const word of words.split(/\s+/)) expect(text.toLocaleLowerCase()).toContain(word);
    expect(await page.locator('[role="status"]').filter({ hasText: /match/ }).innerText()).toMatch(/^\d+ choices? match/);
    await Promise.all([page.waitForURL(/product_id=/), page.getByLabel('Narrow the list below by typing').press('Enter')]);
    const chosen = await page.getByLabel('Item', { exact: true }).inputValue();
    expect(new URL(page.url()).searchParams.get('product_id')).toBe(chosen.split(':')[0]);
    expect(await total()).toBeGreaterThan(0);
  });

  it('suggests riders as one types part of a name; the chosen ID filters the list and the chip names the rider', async () => {
    const [rider] = (
      await served.t.pool.query(
        `SELECT r.id, r.name FROM riders r WHERE EXISTS (SELECT 1 FROM patrol_checks pc WHERE pc.rider_id = r.id) ORDER BY r.id LIMIT 1`,
      )
    ).rows;
    // Part of the name, enough that this rider is among the 20 suggestions.
    const part = rider.name.slice(0, -1);
    await page.goto(url('/admin/checks'));
    await page.getByLabel('Rider', { exact: true }).pressSequentially(part, { delay: 30 });
    // The suggestions arrive from /admin/lookup/riders into the field's datalist.
    await page.locator(`#rider-suggestions option[value="${rider.id}"]`).waitFor({ state: 'attached' });
    const label = await page.locator(`#rider-suggestions option[value="${rider.id}"]`).getAttribute('label');
    expect(label).toContain(`${rider.name} (${rider.id})`);
    await page.getByLabel('Rider', { exact: true }).fill(String(rider.id)); // what choosing the suggestion puts in the field
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`[?&]rider_id=${rider.id}(&|$)`));
    expect(new Set(await cells('Rider ID'))).toEqual(new Set([String(rider.id)]));
    await expect(page.locator('.chips li').textContent()).resolves.toBe(`Rider: ${rider.name} (${rider.id}) ×Remove the filter Rider`);
  });

  it('takes a whole name typed without choosing, when one rider has it', async () => {
    const [rider] = (
      await served.t.pool.query(`SELECT min(id) AS id, name FROM riders GROUP BY name HAVING count(*) = 1 ORDER BY name LIMIT 1`)
    ).rows;
    await page.goto(url('/admin/equipment/riders'));
    await page.getByLabel('Rider', { exact: true }).fill(rider.name);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`rider_id=${rider.id}$`));
    expect(await cells('Rider ID')).toEqual([String(rider.id)]);
  });

  it('offers a supervisor limited to one 3PL only that 3PL, its riders and its patrollers', async () => {
    const [company] = (await served.t.pool.query('SELECT c.id, c.name FROM companies c ORDER BY c.id LIMIT 1')).rows;
    const scopedApp = express()
      .use((_req, res, next) => {
        res.locals.supervisor = { id: '1', username: 'lead', companyId: String(company.id) };
        next();
      })
      .use('/admin/assets', express.static(path.join(projectRoot, 'public/admin')))
      .use('/admin', createAdminRouter({ pool: served.t.pool, log: () => undefined }));
    const scoped = await serve(scopedApp);
    try {
      await page.goto(`${scoped.base}/admin/checks`);
      expect(await page.locator('#f-3pl option').allInnerTexts()).toEqual(['Any', company.name]);
      const patrollers = (await page.evaluate(
        "[...document.querySelectorAll('#patroller-suggestions option')].map((o) => o.value)",
      )) as string[];
      const theirs = (
        await served.t.pool.query(
          `SELECT DISTINCT pc.patroller_id::text AS id FROM patrol_checks pc JOIN riders r ON r.id = pc.rider_id WHERE r.company_id = $1`,
          [company.id],
        )
      ).rows.map((row) => row.id);
      expect(new Set(patrollers)).toEqual(new Set(theirs));
      await page.getByLabel('Rider', { exact: true }).pressSequentially('an', { delay: 30 });
      await page.locator('#rider-suggestions option').first().waitFor({ state: 'attached' });
      const labels = (await page.evaluate("[...document.querySelectorAll('#rider-suggestions option')].map((o) => o.label)")) as string[];
      for (const label of labels) expect(label.endsWith(` · ${company.name}`)).toBe(true);
    } finally {
      await scoped.close();
    }
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

describe('keyboard and small screens', () => {
  it('starts with a skip link that moves focus to the content', async () => {
    await page.goto(url('/admin/checks'));
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
  });

  it('offers skip links to the results and to the pages on a list, and each moves focus there', async () => {
    await page.goto(url('/admin/checks'));
    const skips = ['Skip to content', 'Skip to the results', 'Skip to the pages'];
    for (const [i, [label, id]] of [
      ['Skip to the results', 'results'],
      ['Skip to the pages', 'pager'],
    ].entries()) {
      await page.goto(url('/admin/checks'));
      for (let n = 0; n < i + 2; n += 1) await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe(label);
      expect(await page.locator('.skip-link').allInnerTexts()).toEqual(skips);
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.id')).toBe(id);
      // The next Tab goes on from there: from the pager, to its first link.
      if (id === 'pager') {
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement.closest("nav.pager") !== null')).toBe(true);
      }
    }
    // With nothing listed there is no pager to skip to.
    await page.goto(url('/admin/checks?rider_id=999999999'));
    expect(await page.locator('.skip-link').allInnerTexts()).toEqual(skips.slice(0, 2));
  });

  it('offers a visible "Sort by" on a phone, where the header row is hidden, and it sorts', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url('/admin/checks?license_plate=0'));
    const sortBy = page.getByRole('navigation', { name: 'Sort by' });
    await expect(sortBy.isVisible()).resolves.toBe(true);
    await expect(page.locator('table.list thead').isVisible()).resolves.toBe(true); // kept for screen readers, clipped
    expect(await page.locator('table.list thead').evaluate((e) => e.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    await sortBy.getByRole('link', { name: /^Rider ID/ }).click();
    await page.waitForURL(/sort=rider_id/);
    expect(page.url()).toContain('license_plate=0');
    const riders = (await cells('Rider ID')).map(Number);
    expect(riders).toEqual([...riders].sort((a, b) => a - b));
    // The chosen sort is marked, and choosing it again reverses it.
    await expect(sortBy.locator('a[aria-current]').textContent()).resolves.toBe('Rider ID▲, sorted ascending');
    await sortBy.getByRole('link', { name: /^Rider ID/ }).click();
    await page.waitForURL(/dir=desc/);
    const reversed = (await cells('Rider ID')).map(Number);
    expect(reversed).toEqual([...reversed].sort((a, b) => b - a));
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    // At a laptop's width the column headers sort, and the phone's control is not shown.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(sortBy.isVisible()).resolves.toBe(false);
  });

  it("fits a rider's printable report on a phone: each item held a card, its Record and exchange day in view", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { rows } = await served.t.pool.query(
      `SELECT rider_id FROM assignments WHERE deleted_at IS NULL GROUP BY rider_id ORDER BY count(*) DESC, rider_id LIMIT 1`,
    );
    await page.goto(url(`/admin/riders/${rows[0].rider_id}/report`));
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    for (const label of ['Record', 'Eligible for exchange']) {
      const cell = page.locator(`section.held td[data-label="${label}"]`).first();
      await expect(cell.isVisible()).resolves.toBe(true);
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      // The column's name is drawn beside the value, as the hidden header row would say.
      expect(
        await page.evaluate(`getComputedStyle(document.querySelector('section.held td[data-label="${label}"]'), '::before').content`),
      ).toBe(`"${label}"`);
    }
    // The running head is for paper only.
    await expect(page.locator('.running-head').isVisible()).resolves.toBe(false);
  });

  it.each([1366, 390])('shows every filter select’s longest option whole, and a range’s presets on one line, at %i px', async (width) => {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ['/admin/checks', '/admin/equipment/assignments', '/admin/equipment/returns', '/admin/attention/overdue-items']) {
      await page.goto(url(path));
      // Each option's text as the select draws it (its font), against the room inside its box (less the arrow).
      // On a phone, the item picker's long product names are read in the phone's own list when it opens.
      const selects = width === 1366 ? 'form.filters select' : 'form.filters select:not([name=item])';
      const cut = await page.evaluate(`[...document.querySelectorAll('${selects}')].flatMap((s) => {
        const pen = document.createElement('canvas').getContext('2d');
        const style = getComputedStyle(s);
        pen.font = style.font;
        const longest = Math.max(...[...s.options].map((o) => pen.measureText(o.text).width));
        const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
        return longest > room ? [s.name + ': ' + Math.round(longest) + ' px in ' + Math.round(room)] : [];
      })`);
      expect({ path, cut }).toEqual({ path, cut: [] });
      if (width === 1366) {
        const lines = (await page.evaluate(`[...document.querySelectorAll('.field-range > .presets')].map((p) =>
          Math.round(p.getBoundingClientRect().height / (parseFloat(getComputedStyle(p).fontSize) * 1.2)))`)) as number[];
        expect({ path, lines: lines.filter((n) => n > 1) }).toEqual({ path, lines: [] });
      }
    }
  });

  it('fits a phone screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { rows } = await served.t.pool.query(
      `SELECT id, rider_id, to_char(checked_at, 'YYYY-MM-DD') AS day FROM patrol_checks ORDER BY id LIMIT 1`,
    );
    for (const path of [
      '/admin',
      `/admin?as_of=${rows[0].day}`,
      '/admin/checks',
      `/admin/checks/${rows[0].id}`,
      '/admin/equipment/riders',
      '/admin/equipment/assignments',
      '/admin/equipment/exchanges',
      `/admin/riders/${rows[0].rider_id}`,
      '/admin/questionnaire?country_id=1',
      '/admin/checks?rider_id=x',
    ]) {
      await page.goto(url(path));
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect([path, overflow]).toEqual([path, 0]);
      // Nor inside: every table fits the box it scrolls in.
      const wider = await page.evaluate(
        `[...document.querySelectorAll('.table-wrap > table')].filter((t) => t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5).map((t) => t.className)`,
      );
      expect([path, wider]).toEqual([path, []]);
    }
    // The overview's chart keys keep their swatch beside their word (one line each).
    await page.goto(url(`/admin?as_of=${rows[0].day}`));
    const keys = await page.locator('.day-chart .key').evaluateAll((els) => els.map((e) => e.getClientRects().length));
    expect(keys).toEqual([1, 1]);
  });
});

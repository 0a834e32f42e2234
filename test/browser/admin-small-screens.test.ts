import type { Page } from 'playwright-core';
import { useAdminBrowser } from '../support/admin-browser';

// The admin pages in real headless Chromium at a laptop's and a phone's width, on the demo data
// (test/support/admin-browser.ts): lists that fit their box, skip links and the keyboard, and pages that
// fit a phone.
jest.setTimeout(60000);

const { served, tab, url, cells } = useAdminBrowser();
let page: Page;
beforeEach(() => (page = tab.page));

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

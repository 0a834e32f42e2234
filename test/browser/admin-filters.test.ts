import path from 'node:path';
import express from 'express';
import { createAdminRouter } from '../../src/admin/router';
import { projectRoot } from '../../src/paths';
import { serve } from '../support/app';
import type { Page } from 'playwright-core';
import { useAdminBrowser } from '../support/admin-browser';

// The admin pages' filters picked by name in real headless Chromium, on the demo data
// (test/support/admin-browser.ts): the grouped item select, the rider suggestions, and a supervisor
// limited to one 3PL.
jest.setTimeout(60000);

const { served, tab, url, count, total, cells } = useAdminBrowser();
let page: Page;
beforeEach(() => (page = tab.page));

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

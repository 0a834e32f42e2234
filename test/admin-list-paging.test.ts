import express from 'express';
import type { Reader } from '../src/db/pool';
import request from 'supertest';
import { createAdminRouter } from '../src/admin/router';
import { allLists } from '../src/admin/lists';
import { ruleListResources } from '../src/admin/attention';
import { DEFAULT_ATTENTION } from '../src/config';
import type { ListResource } from '../src/admin/list-page';
import { cursorOf, keyOfRow, pageOf, positionOf, type Position } from '../src/admin/list-pager';
import { toNative } from '../src/db/knex';
import { queryRows } from '../src/db/rows';
import { orderAll, pageKeys, pageRows, sortKeys, type Dir } from '../src/queries/keyset';
import { testApp, type TestApp } from './support/app';
import { one, parseHtml, tableRows, textOf } from './support/html';

// Paging by sort key over the demo data (hundreds of riders, thousands of checks and assignments):
// every sort of every list, both ways, walked page by page forwards from the first page and
// backwards from the last, gives exactly the rows of one plain ORDER BY over the whole list.
let t: TestApp;
beforeAll(() => (t = testApp('demo')));
afterAll(() => t.close());

type Row = Record<string, unknown>;
const run = (builder: Parameters<typeof toNative>[0]) => queryRows<Row>(t.pool, toNative(builder));

/** The ids of one page read as the list page reads it. */
async function read(list: ListResource, values: Record<string, unknown>, sort: string, dir: Dir, position: Position, perPage: number) {
  const keys = pageKeys({
    source: () => (list.keys ?? list.filtered)(values),
    sort: list.sorts[sort],
    dir,
    tieBreak: list.tieBreak,
    backwards: position.backwards,
    cursor: position.cursor,
    offset: position.offset,
    limit: perPage + 1,
  });
  const found = await run(pageRows(list.columns(list.filtered(values), values), keys, list.sorts[sort], dir, list.tieBreak));
  return pageOf(found, position, perPage);
}

const ids = (rows: Row[]) => rows.map((row) => String(row.page_key_id));
const filtersOf: Record<string, Record<string, unknown>> = {
  '/checks': { is_validation: false },
  '/equipment/assignments': { active: true },
  '/equipment/riders': { active: false },
  '/equipment/returns': { '3pl': 'Swift & Co' },
  '/equipment/exchanges': { replacement_type: 'Exchange' },
  '/attention/failing-checks': { as_of: '2026-09-30' },
  '/attention/overdue-items': { '3pl': 'Swift & Co' },
  '/attention/unchecked': { as_of: '2026-09-30' },
};

// The rules of "Needs attention" are lists of the same engine (one failed check is enough here, so
// that the demo's riders fill several pages).
const lists = [...allLists, ...ruleListResources({ ...DEFAULT_ATTENTION, failedChecks: 1, uncheckedDays: 30 })];

describe.each(lists.map((list) => [list.path, list] as const))('%s', (_path, list) => {
  const cases = Object.keys(list.sorts).flatMap((sort) =>
    (['asc', 'desc'] as const).flatMap((dir) => [
      [sort, dir, 'unfiltered'] as [string, Dir, string],
      [sort, dir, 'filtered'] as [string, Dir, string],
    ]),
  );
  it.each(cases)(
    'by %s %s (%s): pages forwards and backwards, and by number, are the plain order cut in pages',
    async (sort, dir, which) => {
      const values = which === 'filtered' ? filtersOf[list.path] : {};
      const all = ids(
        await run(orderAll(list.filtered(values).select(`${list.tieBreak} as page_key_id`), list.sorts[sort], dir, list.tieBreak)),
      );
      expect(all.length).toBeGreaterThan(20);
      const perPage = Math.max(2, Math.ceil(all.length / 6));
      const keys = sortKeys(list.sorts[sort], dir);

      // Forwards: the first page, then Next by the last row's key until there is none.
      const forwards: string[][] = [];
      let position = positionOf({}, keys, perPage, dir);
      for (;;) {
        const page = await read(list, values, sort, dir, position, perPage);
        forwards.push(ids(page.rows));
        expect(page.before).toBe(forwards.length > 1);
        if (!page.after) break;
        position = positionOf({ after: keyOfRow(page.rows[page.rows.length - 1], keys.length) }, keys, perPage, dir);
      }
      expect(forwards.flat()).toEqual(all);
      expect(forwards.slice(0, -1).every((page) => page.length === perPage)).toBe(true);

      // Backwards: the last page (from_end=1), then Previous by the first row's key.
      const backwards: string[][] = [];
      position = positionOf({ from_end: 1 }, keys, perPage, dir);
      for (;;) {
        const page = await read(list, values, sort, dir, position, perPage);
        backwards.unshift(ids(page.rows));
        expect(page.after).toBe(backwards.length > 1);
        if (!page.before) break;
        position = positionOf({ before: keyOfRow(page.rows[0], keys.length) }, keys, perPage, dir);
      }
      expect(backwards.flat()).toEqual(all);
      expect(backwards.slice(1).every((page) => page.length === perPage)).toBe(true);

      // By number (an offset over the keys), and from the end by number.
      for (let n = 1; n <= forwards.length; n++) {
        const page = await read(list, values, sort, dir, positionOf({ page: n }, keys, perPage, dir), perPage);
        expect(ids(page.rows)).toEqual(forwards[n - 1]);
      }
      const second = await read(list, values, sort, dir, positionOf({ from_end: 2 }, keys, perPage, dir), perPage);
      expect(ids(second.rows)).toEqual(backwards[backwards.length - 2]);
    },
  );
});

describe('the list pages with a capped total', () => {
  // The demo's thousands of checks against a cap of 100.
  const app = () => express().use('/admin', createAdminRouter({ pool: t.pool, listCountCap: 100 }));
  const get = async (path: string, status = 200) => {
    const res = await request(app()).get(path);
    expect(res.status).toBe(status);
    return res.text;
  };
  const checkIds = async (sql: string) => (await t.pool.query<{ id: string }>(sql)).rows.map((row) => row.id);
  const column0 = (html: string) => tableRows(html).map((row) => row[0]);
  const link = (html: string, rel: string) => one(html, `nav.pager a[rel="${rel}"]`).getAttribute('href')!;
  const newest = 'SELECT id::text FROM patrol_checks ORDER BY checked_at DESC, id DESC';

  it('says "more than" the cap, never a number it did not count, and keeps exact totals under it', async () => {
    const html = await get('/admin/checks');
    expect(textOf(one(html, '.summary'))).toBe('More than 100 patrol checks; showing 1–25. Download all as CSV');
    expect(textOf(one(html, 'caption'))).toBe('Patrol checks, page 1');
    const [{ n }] = (await t.pool.query<{ n: string }>('SELECT count(*) AS n FROM patrol_checks WHERE rider_id = 100001')).rows;
    expect(Number(n)).toBeLessThan(100);
    expect(textOf(one(await get('/admin/checks?rider_id=100001'), '.summary'))).toContain(`${n} patrol checks match these filters`);
  });

  it('counts a list past its cap once for a while (its other pages and sorts too), and a total under the cap on every page', async () => {
    const statements: string[] = [];
    const counting: Reader = {
      async acquire(signal, lane) {
        const client = await t.pool.acquire(signal, lane);
        const query = client.query.bind(client) as (config: { text: string }) => Promise<unknown>;
        return Object.assign(Object.create(client) as typeof client, {
          query: (config: { text: string }) => (statements.push(config.text), query(config)),
        });
      },
    };
    const own = express().use('/admin', createAdminRouter({ pool: counting, listCountCap: 100 }));
    const counts = () => statements.filter((text) => text.includes('as "capped"')).length;
    for (const path of ['/admin/checks', '/admin/checks?page=3', '/admin/checks?sort=3pl&dir=asc', '/admin/checks']) {
      const res = await request(own).get(path);
      expect(res.status).toBe(200);
      expect(textOf(one(res.text, '.summary'))).toMatch(/^More than 100 patrol checks/);
    }
    expect(counts()).toBe(1);
    for (let i = 0; i < 2; i++) expect((await request(own).get('/admin/checks?rider_id=100001')).status).toBe(200);
    expect(counts()).toBe(3);
  });

  it('pages on with Next and back with Previous by the rows’ sort keys, showing the page number', async () => {
    const all = await checkIds(newest);
    const first = await get('/admin/checks');
    expect(column0(first)).toEqual(all.slice(0, 25));
    const next = link(first, 'next');
    expect(next).toMatch(/^\/admin\/checks\?page=2&after=[A-Za-z0-9_-]+$/);
    const second = await get(next);
    expect(column0(second)).toEqual(all.slice(25, 50));
    expect(textOf(one(second, '.summary'))).toContain('showing 26–50');
    const third = await get(link(second, 'next'));
    expect(column0(third)).toEqual(all.slice(50, 75));
    expect(one(third, 'nav.pager a[aria-current="page"]').getAttribute('aria-label')).toBe('Page 3, current');
    const back = link(third, 'prev');
    expect(back).toMatch(/^\/admin\/checks\?page=2&before=/);
    expect(column0(await get(back))).toEqual(all.slice(25, 50));
    // Page 1 is the plain address.
    expect(link(second, 'prev')).toBe('/admin/checks');
  });

  it('reaches the last page, read from the end, and pages back from it', async () => {
    const all = await checkIds(newest);
    const first = await get('/admin/checks?is_validation=1');
    const lastHref = one(first, 'nav.pager a[aria-label="Last page"]').getAttribute('href')!;
    expect(lastHref).toBe('/admin/checks?is_validation=1&from_end=1');
    const passed = await checkIds('SELECT id::text FROM patrol_checks WHERE id_valid ORDER BY checked_at DESC, id DESC');
    const last = await get(lastHref);
    expect(column0(last)).toEqual(passed.slice(-25));
    expect(textOf(one(last, '.summary'))).toContain('showing the last 25');
    expect(textOf(one(last, 'caption'))).toBe('Patrol checks, last page');
    expect(one(last, 'nav.pager').toString()).toContain('<span class="disabled" aria-disabled="true">Next ›</span>');
    const before = await get(link(last, 'prev'));
    expect(column0(before)).toEqual(passed.slice(-50, -25));
    expect(textOf(one(before, 'caption'))).toBe('Patrol checks, page 2 from the end');
    expect(link(before, 'next')).toBe('/admin/checks?is_validation=1&from_end=1');
    expect(all.length).toBeGreaterThan(passed.length);
  });

  it('says so when a numbered page is past the end, with a link to the last page', async () => {
    const html = await get('/admin/checks?page=1000');
    expect(textOf(one(html, 'p.notice'))).toBe('This page is past the end of the list. Go to the last page.');
    expect(one(html, 'p.notice a').getAttribute('href')).toBe('/admin/checks?from_end=1');
  });

  it('reads no page number farther than FAR_ROWS rows in: it says how to reach those rows instead', async () => {
    const html = await get('/admin/checks?page=100000');
    expect(textOf(one(html, 'p.notice'))).toBe(
      'This page starts 2,499,975 rows from the start of the list: too far to be counted out on each visit. Reach those rows at once ' +
        'by their day (Go to a day, below), with Last, by sorting the other way, or by narrowing the filters (a 3PL, a shorter date range, one rider).',
    );
    expect([...parseHtml(html).querySelectorAll('p.notice a')].map((a) => a.getAttribute('href'))).toEqual([
      '#go-to-day',
      '/admin/checks?from_end=1',
      '/admin/checks?dir=asc',
    ]);
  });

  it('sorts by a column of another table (3PL, then date) in pages that follow each other', async () => {
    const order =
      'SELECT pc.id::text FROM patrol_checks pc JOIN riders r ON r.id = pc.rider_id JOIN companies c ON c.id = r.company_id ORDER BY c.name DESC, pc.checked_at DESC, pc.id DESC';
    const all = await checkIds(order);
    const first = await get('/admin/checks?sort=3pl&dir=desc');
    expect(column0(first)).toEqual(all.slice(0, 25));
    expect(column0(await get(link(first, 'next')))).toEqual(all.slice(25, 50));
  });

  it.each([
    ['after=nonsense', 'The Next link is not a page link of this list in this order; go back to the first page'],
    [`after=${cursorOf(['2024-13-01 00:00:00+00', '1'])}`, 'The Next link is not a page link'],
    [`after=${cursorOf(['2024-02-30 00:00:00+00', '1'])}`, 'The Next link is not a page link'],
    [`before=${cursorOf(['2024-01-01 00:00:00+00', '99999999999999999999'])}`, 'The Previous link is not a page link'],
    // A cursor of another sort: one key too many.
    [`sort=id&after=${cursorOf(['2024-01-01 00:00:00+00', '1'])}`, 'The Next link is not a page link'],
    [`sort=3pl&after=${cursorOf(['Swift\u0000', '1', '2'])}`, 'The Next link is not a page link'],
    [
      `after=${cursorOf(['2024-01-01 00:00:00+00', '1'])}&before=${cursorOf(['2024-01-01 00:00:00+00', '1'])}`,
      'The Previous link may not be given with the Next link’s position',
    ],
    ['page=2&from_end=1', 'Page from the end may not be given with a Page'],
    ['from_end=0', 'Page from the end must be'],
  ])('answers 400 with a message for %s', async (query, message) => {
    const html = await get(`/admin/checks?${query}`, 400);
    expect(textOf(one(html, '.error-summary'))).toContain(message);
  });

  it('reads a well-formed cursor of no row as a position like any other', async () => {
    const all = await checkIds(newest);
    const html = await get(`/admin/checks?page=2&after=${cursorOf(['9999-01-01 00:00:00+00', '1'])}`);
    expect(column0(html)).toEqual(all.slice(0, 25));
    expect(parseHtml(html).querySelector('p.notice')).toBeNull();
  });
});

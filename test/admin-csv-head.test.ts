// A list's CSV starts with its first rows read as a page is (an index range in the list's order),
// then the rest: the whole list's statement past them (OFFSET), written by PostgreSQL (COPY) when every
// column can be, else by JavaScript: the file must be the one statement's file as JavaScript writes it,
// byte for byte, for every list, every sort and both directions.
import http from 'node:http';
import express from 'express';
import type pg from 'pg';
import request from 'supertest';
import { stringify } from 'csv-stringify/sync';
import { to as copyTo } from 'pg-copy-streams';
import { copyable, csvCopy } from '../src/admin/csv-copy';
import { createAdminRouter } from '../src/admin/router';
import { spreadsheetSafe } from '../src/admin/stream-csv';
import { adminLists } from '../src/admin/registry';
import { DEFAULT_ATTENTION } from '../src/config';
import { adminPages, resolvePage } from '../bench/admin-pages';
import { datasetValues } from '../bench/admin-values';
import { allLists } from '../src/admin/lists';
import { DEFAULT_PER_PAGE } from '../src/admin/list-params';
import type { Reader } from '../src/db/pool';
import { poolSettles, serve, testApp, type TestApp } from './support/app';
import { parseCsv } from './support/csv';
import { tableRows } from './support/html';
import { eventually } from './support/wait';

let t: TestApp;
beforeAll(() => (t = testApp('csvHead')));
afterAll(() => t.close());

/**
 * The admin pages with a CSV's first `csvHeadRows` rows read as a page (0: the whole file in one
 * statement, written by JavaScript), written by PostgreSQL where it can unless `csvCopy` is false.
 */
const admin = (csvHeadRows: number, csvCopy = true) =>
  express().use('/admin', createAdminRouter({ pool: t.pool, streamPool: t.streamPool, csvHeadRows, csvCopy }));
const csv = async (app: express.Express, path: string) => (await request(app).get(path).expect(200)).text;

/** What a COPY statement writes, as text. */
async function copyText(sql: string): Promise<string> {
  const client = await t.pool.connect();
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of client.query(copyTo(sql))) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    client.release();
  }
}

const cases = adminLists(DEFAULT_ATTENTION).flatMap((list) =>
  Object.keys(list.sorts).flatMap((sort) => (['asc', 'desc'] as const).map((dir) => [`${list.path}.csv?sort=${sort}&dir=${dir}`] as const)),
);

describe('a list CSV read as its first rows, then the rest', () => {
  test.each(cases)('%s is the file one statement gives, row for row', async (path) => {
    const whole = await csv(admin(0), `/admin${path}`);
    // 7 rows first: the rest follows after a key of the middle of the list.
    expect(await csv(admin(7), `/admin${path}`)).toBe(whole);
    expect(await csv(admin(7, false), `/admin${path}`)).toBe(whole);
  });

  it('reads past the first rows in the demo’s lists, so the rest is what is compared', async () => {
    for (const list of adminLists(DEFAULT_ATTENTION)) {
      const lines = (await csv(admin(0), `/admin${list.path}.csv`)).trimEnd().split('\n');
      expect({ list: list.path, more: lines.length - 1 > 7 }).toEqual({ list: list.path, more: true });
    }
  });

  it('reads the rest only when the first rows were as many as it reads first: a shorter list is one statement', async () => {
    const copies: string[] = [];
    const watched: Reader = {
      async acquire(signal, lane) {
        const client = await t.streamPool.acquire(signal, lane);
        const query = client.query.bind(client) as (q: unknown) => unknown;
        return Object.assign(Object.create(client) as typeof client, {
          query: (q: { text?: string }) => (typeof q === 'object' && /^COPY /.test(q.text ?? '') && copies.push(q.text!), query(q)),
        });
      },
    };
    const app = express().use('/admin', createAdminRouter({ pool: t.pool, streamPool: watched, csvHeadRows: 7 }));
    const [{ rider }] = (
      await t.pool.query<{ rider: string }>(
        'SELECT rider_id AS rider FROM patrol_checks GROUP BY rider_id HAVING count(*) BETWEEN 1 AND 6 LIMIT 1',
      )
    ).rows;
    for (const [path, statements] of [
      [`/admin/checks.csv?rider_id=${rider}`, 1],
      ['/admin/checks.csv', 2],
    ] as const) {
      copies.length = 0;
      expect(await csv(app, path)).toBe(await csv(admin(0), path));
      expect({ path, statements: copies.length }).toEqual({ path, statements });
    }
    expect(copies[1]).toMatch(/ offset 7\) AS t\) AS u\) TO STDOUT/);
  });

  it('is written by PostgreSQL for every list but riders with equipment', () => {
    const copied = adminLists(DEFAULT_ATTENTION)
      .filter((list) => copyable(list.table))
      .map((list) => list.path);
    expect(copied).toEqual([
      '/checks',
      '/equipment/assignments',
      '/equipment/returns',
      '/equipment/exchanges',
      '/attention/failing-checks',
      '/attention/overdue-items',
      '/attention/unchecked',
    ]);
  });

  it('makes a cell a spreadsheet would run as a formula safe, as JavaScript does, and keeps numbers', async () => {
    const cells = ['=HYPERLINK("x")', '+1 call', '-3', '-3.5', '@sum', '\tx', '\rx', 'plain', '', ' =not first', '٣', '+٣'];
    for (const cell of cells) {
      const sql = csvCopy([{ key: 'v', label: 'V' }], { text: 'SELECT $1::text AS v', values: [cell] }, false);
      expect({ cell, copied: await copyText(sql) }).toEqual({ cell, copied: stringify([[spreadsheetSafe(cell)]]) });
    }
  });

  it('gives in each column’s SQL the text JavaScript gives, on values the demo may not hold (notes, owners, counts)', async () => {
    const rows: Array<Record<string, string | number | null>> = [
      {
        earlier_note: null,
        earlier_by: null,
        earlier_on: null,
        earlier_until: null,
        owner: null,
        items: 1,
        item_names: 'Box',
        last_check: null,
      },
      {
        earlier_note: '',
        earlier_by: 'lead',
        earlier_on: '2026-01-02',
        earlier_until: null,
        owner: '',
        items: 2,
        item_names: 'Box, Vest',
        last_check: '2026-01-03 10:00:00',
      },
      {
        earlier_note: 'Called, عاد',
        earlier_by: 'lead',
        earlier_on: '2026-01-02',
        earlier_until: '2026-02-01',
        owner: 'reem',
        items: 1234,
        item_names: '=Vest',
        last_check: '',
      },
      {
        earlier_note: 'Spoke (twice)',
        earlier_by: 'a.b',
        earlier_on: '2026-01-02',
        earlier_until: '',
        owner: 'Malik, Reem',
        items: 0,
        item_names: '',
        last_check: '2025-12-31 23:59:59',
      },
    ];
    const columns = adminLists(DEFAULT_ATTENTION)
      .flatMap((list) => list.table)
      .filter((column) => column.csvSql !== undefined && column.text !== undefined && column.key in rows[0]);
    expect(new Set(columns.map((column) => column.key))).toEqual(new Set(['earlier_note', 'owner', 'items', 'last_check']));
    for (const row of rows) {
      const keys = Object.keys(row);
      const source = {
        text: `SELECT ${keys.map((key, i) => `$${i + 1}::${key === 'items' ? 'int' : 'text'} AS ${key}`).join(', ')}`,
        values: keys.map((key) => row[key]),
      };
      for (const column of columns) {
        const copied = await copyText(csvCopy([column], source, false));
        expect({ column: column.key, row, copied }).toEqual({
          column: column.key,
          row,
          copied: stringify([[spreadsheetSafe(column.text!(row))]]),
        });
      }
    }
  });

  it('is the one statement’s file under each filter of each list, the sampled values of its data', async () => {
    const { pages, samples } = adminPages(allLists, { deepPage: 400, bothDirections: false });
    const client = await t.pool.connect();
    const values = await datasetValues(client as unknown as pg.Client, samples).finally(() => client.release());
    const filtered = pages.filter((page) => page.list?.variant === 'filter');
    expect(filtered.length).toBeGreaterThan(30);
    for (const page of filtered) {
      const [path, query] = resolvePage(page, values, () => 0.5).split('?');
      const address = `${path}.csv?${query}`;
      expect({ address, same: await csv(admin(7), address) }).toEqual({ address, same: await csv(admin(0), address) });
    }
  });

  it('shows on each list’s page, under each filter, the first rows of the CSV of the same address', async () => {
    // The page reads its rows from the list's own table (src/queries/list-keys.ts), the CSV's rest from the
    // list's query and its joins: a filter whose own condition (a hookParam's) reads a joined table, which
    // keptKeys cannot check, fails on the page alone.
    const { pages, samples } = adminPages(allLists, { deepPage: 400, bothDirections: false });
    const client = await t.pool.connect();
    const values = await datasetValues(client as unknown as pg.Client, samples).finally(() => client.release());
    for (const page of pages.filter((p) => p.list?.variant === 'filter')) {
      const [path, query] = resolvePage(page, values, () => 0.5).split('?');
      const res = await request(admin(7)).get(`${path}?${query}`);
      expect({ path, query, status: res.status }).toEqual({ path, query, status: 200 });
      const shown = tableRows(res.text).map((cells) => cells[0]);
      const rows = parseCsv(await csv(admin(7), `${path}.csv?${query}`)).slice(1);
      expect({ path, query, shown }).toEqual({ path, query, shown: rows.slice(0, DEFAULT_PER_PAGE).map((cells) => cells[0]) });
    }
  });

  it('keeps the filters in both parts, and a list shorter than its first rows is whole', async () => {
    const filtered = '/admin/equipment/assignments.csv?3pl=Swift%20%26%20Co&active=1';
    const whole = await csv(admin(0), filtered);
    expect(await csv(admin(5), filtered)).toBe(whole);
    const lines = whole.trimEnd().split('\n').length - 1;
    expect(lines).toBeGreaterThan(5);
    expect(await csv(admin(lines + 10), filtered)).toBe(whole);
    expect(await csv(admin(lines), filtered)).toBe(whole);
  });

  /** This app's download connections in a transaction or running a statement (not other files' on the same database). */
  const busyDownloads = async () =>
    (
      await t.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'
            AND application_name LIKE '%/streams'`,
      )
    ).rows[0].n;

  it('gives its connection back out of its transaction, whole or left half-way', async () => {
    await csv(admin(7), '/admin/checks.csv');
    await poolSettles(t.streamPool);
    await eventually(async () => (await busyDownloads()) === 0, { what: 'no download connection busy' });
    const { base, close } = await serve(admin(7));
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${base}/admin/equipment/assignments.csv?sort=product&dir=desc`, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
      });
      await poolSettles(t.streamPool);
      // Polled: the backend says it is idle a moment after the pool has it back.
      await eventually(async () => (await busyDownloads()) === 0, { what: 'no download connection busy' });
    } finally {
      await close();
    }
  });
});

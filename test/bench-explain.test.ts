// bench/explain-list.ts measures what the admin pages run: a list page's statements come from the
// page's own readPage() (the same statements, with the same values, as a request for that page runs),
// and the rider lookup's and search's from their handlers' builders.
import type pg from 'pg';
import request from 'supertest';
import { explainListPage, explainSearch, explainSorts, searchTable, sortsTable, SORTED_LISTS } from '../bench/explain-list';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => (t = testApp('demo')));
afterAll(() => t.close());

/** Every statement the admin pool runs while `work` does, as text and values. */
async function statementsOf(work: () => Promise<unknown>): Promise<Array<{ text: string; values: unknown[] }>> {
  const seen: Array<{ text: string; values: unknown[] }> = [];
  const acquire = t.adminPool.acquire.bind(t.adminPool);
  t.adminPool.acquire = async (...args) => {
    const client = await acquire(...args);
    const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<unknown>;
    const watched = (config: pg.QueryConfig | string, values?: unknown[]) => {
      if (typeof config === 'string') seen.push({ text: config, values: values ?? [] });
      else seen.push({ text: config.text, values: config.values ?? values ?? [] });
      return query(config, values);
    };
    (client as unknown as { query: unknown }).query = watched;
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      (client as unknown as { query: unknown }).query = query;
      return release(error);
    };
    return client;
  };
  try {
    await work();
  } finally {
    t.adminPool.acquire = acquire;
  }
  return seen;
}

const key = (s: { text: string; values: unknown[] }) => JSON.stringify([s.text, s.values.map(String)]);

describe('explain-list: a list page', () => {
  it.each([
    ['/checks', 'result=failed&page=2'],
    ['/checks', 'sort=3pl&dir=desc&per_page=50'],
    ['/equipment/returns', 'from_end=1'],
    ['/attention/failing-checks', ''],
    ['/attention/overdue-items', 'page=3'],
  ])('%s?%s: the statements the page runs, with their values', async (list, query) => {
    const ran = await statementsOf(async () => {
      const res = await request(t.app).get(`/admin${list}${query ? `?${query}` : ''}`);
      expect(res.status).toBe(200);
    });
    const explained = await explainListPage(t.adminPool, list, query, undefined, 1);
    expect(explained.map((e) => e.name)).toContain('page');
    // Each statement explained is one the page ran, and the page's own (its rows, its count or total) are all there.
    const page = new Set(ran.map(key));
    for (const e of explained) expect(page.has(key(e.statement))).toBe(true);
    for (const e of explained) expect(e.ms).toBeGreaterThan(0);
  });

  it('reads a rule list’s exact total where the page does, not a capped count', async () => {
    const names = (await explainListPage(t.adminPool, '/attention/unchecked', '', undefined, 1)).map((e) => e.name);
    expect(names).toContain('page');
    expect(names.some((name) => name.startsWith('total '))).toBe(true);
    expect(names).not.toContain('count');
  });

  it('refuses what the page refuses', async () => {
    await expect(explainListPage(t.adminPool, '/checks', 'result=sometimes', undefined, 1)).rejects.toThrow(/result/);
    await expect(explainListPage(t.adminPool, '/nowhere', '', undefined, 1)).rejects.toThrow(/no list at \/nowhere/);
  });
});

describe('explain-list --search and --3pl-sorts', () => {
  it('explains the lookup’s and the search’s statements as their handlers build them, and tables what it measured', async () => {
    const ran = await statementsOf(async () => {
      expect((await request(t.app).get('/admin/lookup/riders?q=mo')).status).toBe(200);
      expect((await request(t.app).get('/admin/search?q=mo')).status).toBe(200);
      expect((await request(t.app).get('/admin/search?q=x')).status).toBe(200);
    });
    const [mo, x] = await explainSearch(t.adminPool, ['mo', 'x'], 1);
    const page = new Set(ran.map(key));
    // The lookup asks nothing for one letter; the search does.
    expect(x.lookup).toBeUndefined();
    for (const e of [mo.lookup!, mo.rows, mo.count, x.rows, x.count]) expect(page.has(key(e.statement))).toBe(true);
    const { rows } = await t.adminPool.query(mo.count.statement.text, mo.count.statement.values);
    expect(mo.found).toBe(Number(rows[0].total));

    const table = searchTable([mo, x]).split('\n');
    expect(table[2]).toBe(
      `| mo | ${mo.lookup!.ms.toFixed(2)} | ${mo.lookup!.buffers} | ${mo.rows.ms.toFixed(2)} | ${mo.rows.buffers} | ${mo.count.ms.toFixed(2)} | ${mo.count.buffers} | ${mo.found} |`,
    );
    expect(table[3]).toMatch(/^\| x \| - \| - \| [\d.]+ \| \d+ \| [\d.]+ \| \d+ \| \d+ \|$/);
  });

  it('measures each sorted list’s three pages, and tables each page’s rows and count', async () => {
    const sorted = await explainSorts(t.adminPool, 1);
    expect(sorted.map((r) => r.list)).toEqual([...SORTED_LISTS]);
    const table = sortsTable(sorted).split('\n');
    expect(table).toHaveLength(2 + SORTED_LISTS.length);
    const first = sorted[0].pages.map((p) => {
      const ms = (name: string) => p.statements.find((e) => e.name === name)!.ms.toFixed(2);
      return `${ms('page')} / ${ms('count')}`;
    });
    expect(table[2]).toBe(`| /checks | ${first.join(' | ')} |`);
  });
});

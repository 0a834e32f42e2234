import type pg from 'pg';
import request from 'supertest';
import { toNative } from '../src/db/knex';
import { filtered, wirePage, type Filters } from '../src/queries/rider-equipment';
import { answerPieces } from '../src/api/v2/send-json';
import { naivePageScript } from '../bench/scenarios';
import { testApp, type TestApp } from './support/app';
import { applied } from './support/rolled-back';

// What the rider equipment list reads instead of computing it (migration 006): the riders with
// equipment per 3PL and id block, and each rider's entry of the page's data. Both are kept by triggers and
// must always equal their definitions (the views rider_list_block_counts and rider_list_entry_docs).

const blockDrift = `SELECT count(*)::int AS n
  FROM (SELECT * FROM rider_list_blocks WHERE with_items > 0) k
  FULL JOIN rider_list_block_counts c USING (company_id, block)
 WHERE (k.with_items, k.with_active, k.with_returned) IS DISTINCT FROM (c.with_items, c.with_active, c.with_returned)`;

const entryDrift = `SELECT count(*)::int AS n
  FROM rider_list_entries k
  FULL JOIN rider_list_entry_docs d USING (rider_id)
 WHERE (k.all_entry, k.active_entry, k.returned_entry) IS DISTINCT FROM (d.all_entry, d.active_entry, d.returned_entry)`;

async function drift(client: pg.ClientBase | pg.Pool): Promise<{ blocks: number; entries: number }> {
  await applied(client);
  return {
    blocks: (await client.query(blockDrift)).rows[0].n,
    entries: (await client.query(entryDrift)).rows[0].n,
  };
}

const apps = {} as { fixture: TestApp; large: TestApp; largeOtherZone: TestApp };
beforeAll(() => {
  apps.fixture = testApp('fixture');
  apps.large = testApp('largeCopy');
  // The same clock as UTC under another name: the kept entries (formatted in 'UTC') are not used.
  apps.largeOtherZone = testApp('largeCopy', { TIME_ZONE: 'Etc/UTC' });
});
afterAll(async () => {
  await Promise.all([apps.fixture.close(), apps.large.close(), apps.largeOtherZone.close()]);
});

describe('kept rider list data', () => {
  it('equals its definition in the fixture and in the generated data (bulk rebuild)', async () => {
    expect(await drift(apps.fixture.pool)).toEqual({ blocks: 0, entries: 0 });
    expect(await drift(apps.large.pool)).toEqual({ blocks: 0, entries: 0 });
    const { rows } = await apps.large.pool.query('SELECT count(*)::int AS blocks, sum(with_items)::int AS riders FROM rider_list_blocks');
    expect(rows[0].blocks).toBeGreaterThan(4); // 4,000 riders over several 3PLs and 1,024-id blocks
    const { rows: riders } = await apps.large.pool.query(
      'SELECT count(*)::int AS n FROM riders WHERE active_items > 0 OR returned_items > 0',
    );
    expect(rows[0].riders).toBe(riders[0].n);
  });

  it('follows every kind of change to riders, assignments, products, variations, 3PLs and countries', async () => {
    const client = await apps.fixture.owner.connect();
    const steps: Array<[string, string]> = [
      [
        'a first item for a rider with none',
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                                             VALUES (2001, 107, 10, 11, '2024-09-01 10:00+00', 1, 0, 'assign')`,
      ],
      [
        'two items in one statement',
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                                      VALUES (2002, 107, 20, 21, '2024-09-03', 1, 1, 'exchange'), (2003, 102, 10, 12, '2024-09-04', 1, 0, 'assign')`,
      ],
      ['an item returned', `UPDATE assignments SET deleted_at = '2024-09-05' WHERE id = 2001`],
      ['an item moved to another rider', 'UPDATE assignments SET rider_id = 103 WHERE id = 2002'],
      ['an assignment changed in place', `UPDATE assignments SET assign_type = 'assign', assigned_at = '2024-08-01' WHERE id = 2003`],
      ['an item deleted', 'DELETE FROM assignments WHERE id = 2001'],
      ['a product renamed', `UPDATE products SET name = 'Helmet Pro' WHERE id = 10`],
      ['a variation renamed', `UPDATE product_variations SET name = 'Large Box v2' WHERE id = 21`],
      ['a rider moved to another 3PL', 'UPDATE riders SET company_id = 2 WHERE id = 101'],
      ['a rider moved to another country', 'UPDATE riders SET country_id = 2 WHERE id = 101'],
      ['a 3PL renamed', `UPDATE companies SET name = 'Swift & Sons' WHERE id = 2`],
      ['a country given another code', `UPDATE countries SET code = 'ZZ' WHERE id = 1`],
      ['a new rider', `INSERT INTO riders (id, name, company_id, country_id) VALUES (5000, 'New Rider', 3, 1)`],
      [
        'the new rider given an item',
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                                       VALUES (2004, 5000, 10, 11, '2024-09-06', 1, 0, 'assign')`,
      ],
      [
        'an item moved to a rider in another block',
        `INSERT INTO riders (id, name, company_id, country_id) VALUES (9000, 'Far Rider', 3, 1);
                                                     UPDATE assignments SET rider_id = 9000 WHERE id = 2004`,
      ],
      ['riders and their items deleted', 'DELETE FROM assignments WHERE rider_id = 9000; DELETE FROM riders WHERE id IN (5000, 9000)'],
      ['every assignment truncated', 'TRUNCATE assignments CASCADE'],
    ];
    try {
      await client.query('BEGIN');
      for (const [what, statement] of steps) {
        await client.query(statement);
        expect({ what, ...(await drift(client)) }).toEqual({ what, blocks: 0, entries: 0 });
      }
      const { rows } = await client.query(
        'SELECT (SELECT count(*)::int FROM rider_list_entries) AS entries, (SELECT coalesce(sum(with_items), 0)::int FROM rider_list_blocks) AS riders',
      );
      expect(rows[0]).toEqual({ entries: 0, riders: 0 });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('rebuilds every entry for another time zone, and refuses an unknown one', async () => {
    const client = await apps.fixture.owner.connect();
    try {
      await client.query('BEGIN');
      const before = (
        await client.query(`SELECT (all_entry::json)->'products'->0->>'assign_date' AS d FROM rider_list_entries WHERE rider_id = 101`)
      ).rows[0].d;
      await client.query(`SELECT rider_list_set_zone('Asia/Dubai')`);
      const after = (
        await client.query(`SELECT (all_entry::json)->'products'->0->>'assign_date' AS d FROM rider_list_entries WHERE rider_id = 101`)
      ).rows[0].d;
      await client.query(`SET LOCAL TimeZone = 'Asia/Dubai'`);
      const expected = (
        await client.query(`SELECT to_char(min(assigned_at), 'YYYY-MM-DD HH24:MI:SS') AS d FROM assignments WHERE rider_id = 101`)
      ).rows[0].d;
      expect(after).toBe(expected);
      expect(after).not.toBe(before); // Dubai is 4 hours from UTC
      expect(await drift(client)).toEqual({ blocks: 0, entries: 0 });
      await client.query('SAVEPOINT unknown');
      await expect(client.query(`SELECT rider_list_set_zone('Mars/Olympus')`)).rejects.toThrow(/time zone/);
      await client.query('ROLLBACK TO SAVEPOINT unknown');
      expect((await client.query('SELECT zone FROM rider_list_zone')).rows[0].zone).toBe('Asia/Dubai');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});

describe('GET /v2/rider-equipment-list from the kept data', () => {
  const cases: Array<Record<string, string>> = [
    { per_page: '100' },
    { per_page: '7', page: '3' },
    { per_page: '1000', page: '4' },
    { active: '1', per_page: '33', page: '30' },
    { active: '0', per_page: '50', page: '12' },
    { '3pl_name': "Road Runner's", per_page: '25', page: '9' },
    { '3pl_name': "Road Runner's", active: '1', per_page: '100', page: '2' },
    { '3pl_name': 'No Such 3PL' },
    { per_page: '100', page: '999999' },
    { rider_id: '1234' },
    { rider_id: '1234', '3pl_name': 'No Such 3PL' },
  ];

  it.each(cases)('answers %j byte for byte as when every entry is built (another zone name)', async (query) => {
    const kept = await request(apps.large.app).get('/v2/rider-equipment-list').query(query);
    const built = await request(apps.largeOtherZone.app).get('/v2/rider-equipment-list').query(query);
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(built.text);
  });

  it.each([
    [1, 100],
    [2, 7],
    [40, 100],
    [41, 100],
    [572, 7],
  ])('sends page %i of %i the same bytes as the plain json_build_object query over every rider', async (page, perPage) => {
    const reference = naivePageScript(page, perPage).sample;
    const expected = (await apps.large.pool.query<{ json: string }>(reference)).rows[0].json;
    const answer = await request(apps.large.app).get('/v2/rider-equipment-list').query({ page, per_page: perPage });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(expected);
  });

  it('pages through every rider exactly once, in id order, for each filter and scope', async () => {
    const { rows: companies } = await apps.large.pool.query<{ id: string; name: string }>(
      'SELECT id::text, name FROM companies ORDER BY id LIMIT 2',
    );
    const variants: Filters[] = [
      {},
      { active: true },
      { active: false },
      { '3pl_name': companies[0].name },
      { company_id: companies[1].id },
      { '3pl_name': companies[0].name, company_id: companies[1].id }, // a scope and another 3PL: nothing
      { '3pl_name': companies[1].name, company_id: companies[1].id, active: true },
    ];
    for (const variant of variants) {
      const expected = (await apps.large.pool.query<{ id: string }>(toNative(filtered(variant).select('r.id').orderBy('r.id')))).rows.map(
        (r) => r.id,
      );
      const perPage = 333; // pages start inside blocks and cross their edges
      const seen: string[] = [];
      let lastPage = 1;
      for (let page = 1; page <= lastPage + 1; page++) {
        const native = toNative(wirePage({ ...variant, page, per_page: perPage }));
        const { rows } = await apps.large.pool.query<{ json: string }>(native);
        const text = answerPieces(
          false,
          rows.map((row) => row.json),
        ).join('');
        const [envelope] = JSON.parse(text) as Array<{ total: number; last_page: number; data: Array<{ rider_id: string }> }>;
        expect(envelope.total).toBe(expected.length);
        lastPage = envelope.last_page;
        if (page > lastPage) expect(envelope.data).toEqual([]);
        seen.push(...envelope.data.map((d) => d.rider_id));
      }
      expect({ variant, seen }).toEqual({ variant, seen: expected });
    }
  });
});

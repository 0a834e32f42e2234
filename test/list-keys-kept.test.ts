import type pg from 'pg';
import express from 'express';
import request from 'supertest';
import { createAdminRouter } from '../src/admin/router';
import { assignmentList, checks, exchangeList, returnList } from '../src/admin/lists';
import type { ListResource } from '../src/admin/list-page';
import { toNative } from '../src/db/knex';
import { testApp, type TestApp } from './support/app';
import { one, textOf } from './support/html';
import { applied, expectKeptAfterEach, keptDrift, noDrift, rolledBack, type Kept } from './support/rolled-back';

// The rider, 3PL and items kept on patrol checks, assignments, returns and exchanges for the admin
// lists (migration 011), written by triggers: they must always equal their definitions (the views
// *_list_key_docs), after every kind of change, and the lists read from them must keep exactly the
// rows the joins would.

const KEPT: Kept[] = [
  { table: 'patrol_checks', columns: 'id, company_id', view: 'patrol_check_list_key_docs' },
  { table: 'assignments', columns: 'id, company_id', view: 'assignment_list_key_docs' },
  { table: 'product_returns', columns: 'id, rider_id, company_id, product_id, variation_id', view: 'product_return_list_key_docs' },
  {
    table: 'product_exchanges',
    columns: 'id, rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id',
    view: 'product_exchange_list_key_docs',
  },
];
/** Rows whose kept columns differ from their definition, either way, per table (0 each when kept right). */
const drift = (client: pg.ClientBase | pg.Pool) => keptDrift(client, KEPT);
const NONE = noDrift(KEPT);

let fixture: TestApp;
let demo: TestApp;
let large: TestApp;
beforeAll(() => {
  fixture = testApp('listKeys'); // a copy of the fixture of its own (test/support/databases.ts)
  demo = testApp('demo');
  large = testApp('largeCopy');
});
afterAll(async () => Promise.all([fixture.close(), demo.close(), large.close()]));

const insertAssignment = (id: number, rider: number, product: number, variation: number) =>
  `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
   VALUES (${id}, ${rider}, ${product}, ${variation}, '2024-09-01 10:00+00', 1, 0, 'assign')`;

describe('the rider, 3PL and items kept on list rows', () => {
  it('equal their definition after the bulk load of the demo data, which writes them with the rows', async () => {
    expect(await drift(demo.pool)).toEqual(NONE);
    expect(await drift(large.pool)).toEqual(NONE);
    const { rows } = await large.pool.query(
      `SELECT (SELECT count(*)::int FROM patrol_checks WHERE company_id IS NULL) AS checks,
              (SELECT count(*)::int FROM product_exchanges WHERE new_variation_id IS NULL) AS exchanges,
              (SELECT count(DISTINCT company_id)::int FROM product_returns) AS companies`,
    );
    expect(rows[0]).toEqual({ checks: 0, exchanges: 0, companies: 6 });
  });

  it('follow every kind of change to checks, assignments, returns, exchanges and riders', async () => {
    const steps: Array<[string, string]> = [
      [
        'checks inserted (one statement, riders of two 3PLs)',
        `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
           (9501, 101, 1, '2025-01-10 08:00+00', true, true, true), (9502, 102, 2, '2025-01-11 08:00+00', false, true, true)`,
      ],
      [
        'a check inserted with another 3PL written by hand',
        `INSERT INTO patrol_checks VALUES (9503, 103, 1, now(), true, true, true, NULL, '{}', 1)`,
      ],
      ['a check moved to a rider of another 3PL', 'UPDATE patrol_checks SET rider_id = 104 WHERE id = 9501'],
      ['a check given another 3PL by hand', 'UPDATE patrol_checks SET company_id = 6 WHERE id = 9001'],
      ['items assigned', `${insertAssignment(2501, 107, 10, 11)}; ${insertAssignment(2502, 107, 20, 21)}`],
      ['an assignment given another 3PL by hand', 'UPDATE assignments SET company_id = 4 WHERE id = 2501'],
      [
        'a return and an exchange',
        `UPDATE assignments SET deleted_at = '2024-10-01' WHERE id IN (2501, 2502);
         ${insertAssignment(2503, 107, 10, 12)};
         INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) VALUES (5501, 2501, '2024-10-01', 1, 'Good');
         INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
           VALUES (7501, 2502, 2503, '2024-10-01', 'Size change', 'Exchange', 1)`,
      ],
      ['a returned item moved to a rider of another 3PL', 'UPDATE assignments SET rider_id = 103 WHERE id = 2501'],
      ['the item given back in an exchange moved to another rider', 'UPDATE assignments SET rider_id = 102 WHERE id = 2502'],
      ['the item handed out in an exchange changed', 'UPDATE assignments SET product_id = 20, variation_id = 21 WHERE id = 2503'],
      ['the item of a return changed', 'UPDATE assignments SET variation_id = 12 WHERE id = 2501'],
      ['a return moved to another assignment', 'UPDATE product_returns SET assignment_id = 1001 WHERE id = 5501'],
      [
        'an exchange given other assignments',
        'UPDATE product_exchanges SET old_assignment_id = 1005, new_assignment_id = 2501 WHERE id = 7501',
      ],
      [
        'kept columns of a return and an exchange written by hand',
        `UPDATE product_returns SET rider_id = 105, company_id = 5, product_id = 20, variation_id = 21 WHERE id = 5002;
         UPDATE product_exchanges SET rider_id = 105, company_id = 5, new_product_id = 20, new_variation_id = 21 WHERE id = 7002`,
      ],
      ['a rider moved to another 3PL (checks, items, returns and exchanges follow)', 'UPDATE riders SET company_id = 3 WHERE id = 101'],
      ['two riders moved in one statement', 'UPDATE riders SET company_id = CASE id WHEN 102 THEN 4 ELSE 1 END WHERE id IN (102, 104)'],
      ['a rider changed without moving', `UPDATE riders SET name = 'Ahmed K.', company_id = 3 WHERE id = 101`],
      [
        'a return, an exchange and a check deleted',
        'DELETE FROM product_returns WHERE id = 5501; DELETE FROM product_exchanges WHERE id = 7501; DELETE FROM patrol_checks WHERE id = 9502',
      ],
      ['every check truncated', 'TRUNCATE patrol_checks CASCADE'],
      ['every assignment truncated', 'TRUNCATE assignments CASCADE'],
    ];
    await expectKeptAfterEach(fixture.owner, KEPT, steps);
  });

  it('moves a rider with everything of theirs for a writer who may change riders and nothing else', async () => {
    const role = `rider_equipment_rider_writer_${process.env.TEST_RUN_ID}`;
    await rolledBack(fixture.owner, async (client) => {
      await client.query(`CREATE ROLE ${role} NOLOGIN`);
      await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}; GRANT UPDATE ON riders TO ${role}`);
      await client.query(`SET LOCAL ROLE ${role}`);
      await client.query('UPDATE riders SET company_id = 2 WHERE id = 101');
      await client.query('RESET ROLE');
      expect(await drift(client)).toEqual(NONE);
      const { rows } = await client.query(
        `SELECT (SELECT array_agg(DISTINCT company_id)::text FROM patrol_checks WHERE rider_id = 101) AS checks,
                (SELECT array_agg(DISTINCT company_id)::text FROM product_exchanges WHERE rider_id = 101) AS exchanges`,
      );
      expect(rows[0]).toEqual({ checks: '{2}', exchanges: '{2}' });
    });
  });

  it("are not read again by the row triggers when the applier rewrites a moved rider's rows, and still by a writer's (migration 035)", async () => {
    const LIST_KEY_TRIGGERS = ['rider_company_list_key', 'product_returns_list_keys', 'product_exchanges_list_keys'];
    // The calls of the list keys' trigger functions in this transaction so far (track_functions counts them).
    const calls = async (client: pg.ClientBase) =>
      (
        await client.query<{ n: number }>(
          `SELECT coalesce(sum(pg_stat_get_xact_function_calls(f::regproc)), 0)::int AS n FROM unnest($1::text[]) f`,
          [LIST_KEY_TRIGGERS],
        )
      ).rows[0].n;
    await rolledBack(fixture.owner, async (client) => {
      await client.query(`SET LOCAL track_functions = 'all'`);
      await applied(client);
      await client.query('UPDATE riders SET company_id = 2 WHERE id = 101');
      const before = await calls(client);
      await applied(client); // rewrites rider 101's checks, items, returns and exchanges
      expect(await calls(client)).toBe(before);
      const { rows } = await client.query(
        `SELECT (SELECT count(*)::int FROM patrol_checks WHERE rider_id = 101 AND company_id = 2) AS checks,
                (SELECT count(*)::int FROM assignments WHERE rider_id = 101 AND company_id = 2) AS items`,
      );
      expect(rows[0].checks).toBeGreaterThan(0);
      expect(rows[0].items).toBeGreaterThan(0);
      expect(await drift(client)).toEqual(NONE);
      // A writer's statement still runs them: a 3PL written by hand is put back.
      await client.query('UPDATE assignments SET company_id = 4 WHERE rider_id = 101');
      expect(await calls(client)).toBeGreaterThan(before);
      expect(await drift(client)).toEqual(NONE);
    });
  });
});

describe('the lists read from the kept columns', () => {
  /** The ids a list's key source keeps, and those its full joins keep, for these values. */
  async function idsBoth(list: ListResource, values: Record<string, unknown>) {
    const ids = async (builder: ReturnType<ListResource['filtered']>) =>
      (await demo.pool.query(toNative(builder.select(`${list.tieBreak} as id`)))).rows.map((row) => String(row.id)).sort();
    return { keys: await ids(list.keys!(values)), joined: await ids(list.filtered(values)) };
  }

  it('keep exactly the rows the joins keep, for each filter by rider, 3PL or item and in a 3PL scope', async () => {
    const { rows } = await demo.pool.query(
      `SELECT (SELECT id::text FROM companies WHERE name = 'Road Runner''s') AS company,
              (SELECT rider_id::text FROM product_exchanges GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS rider,
              (SELECT patroller_id::text FROM patrol_checks GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS patroller,
              (SELECT array[product_id::text, variation_id::text] FROM product_exchanges e JOIN assignments a ON a.id = e.new_assignment_id
                GROUP BY product_id, variation_id ORDER BY count(*) DESC, 1 LIMIT 1) AS item`,
    );
    const { company, rider, patroller, item } = rows[0] as { company: string; rider: string; patroller: string; item: string[] };
    const threePl = { '3pl': 'Swift & Co' };
    const scoped = { company_id: company };
    const cases: Array<[ListResource, Record<string, unknown>]> = [
      [checks, threePl],
      [checks, scoped],
      [checks, { tpatroller_id: patroller, ...scoped }],
      [assignmentList, threePl],
      [assignmentList, { product_id: item[0], variation_id: item[1], ...scoped }],
      [returnList, threePl],
      [returnList, scoped],
      [returnList, { rider_id: rider }],
      [returnList, { product_id: item[0] }],
      [returnList, { product_id: item[0], variation_id: item[1] }],
      [exchangeList, threePl],
      [exchangeList, scoped],
      [exchangeList, { rider_id: rider }],
      [exchangeList, { product_id: item[0], variation_id: item[1] }],
      [exchangeList, { new_product_id: item[0], new_variation_id: item[1] }],
    ];
    for (const [list, values] of cases) {
      const found = await idsBoth(list, values);
      expect({ list: list.path, values, ids: found.keys }).toEqual({ list: list.path, values, ids: found.joined });
      expect({ list: list.path, values, n: found.keys.length > 0 }).toEqual({ list: list.path, values, n: true });
    }
    // A 3PL named and another 3PL's scope: nothing.
    expect((await idsBoth(returnList, { ...threePl, ...scoped })).keys).toEqual([]);
    expect((await idsBoth(checks, { '3pl': 'No such 3PL' })).keys).toEqual([]);
  });

  it('give the exact total of a 3PL, a rider or an item under the cap', async () => {
    const app = express().use('/admin', createAdminRouter({ pool: demo.pool }));
    const cases: Array<[string, string, string]> = [
      [
        '/admin/equipment/returns?3pl=Swift+%26+Co',
        'returns',
        `SELECT count(*) FROM product_return_list_key_docs d JOIN companies c ON c.id = d.company_id WHERE c.name = 'Swift & Co'`,
      ],
      [
        '/admin/equipment/exchanges?3pl=Swift+%26+Co',
        'exchanges',
        `SELECT count(*) FROM product_exchange_list_key_docs d JOIN companies c ON c.id = d.company_id WHERE c.name = 'Swift & Co'`,
      ],
      [
        '/admin/checks?3pl=Swift+%26+Co',
        'patrol checks',
        `SELECT count(*) FROM patrol_check_list_key_docs d JOIN companies c ON c.id = d.company_id WHERE c.name = 'Swift & Co'`,
      ],
    ];
    for (const [path, noun, counted] of cases) {
      const res = await request(app).get(path);
      expect(res.status).toBe(200);
      const n = Number((await demo.pool.query<{ count: string }>(counted)).rows[0].count);
      expect(n).toBeGreaterThan(25);
      expect(textOf(one(res.text, '.summary p'))).toBe(`${n.toLocaleString('en-US')} ${noun} match these filters; showing 1–25.`);
    }
  });
});

import type pg from 'pg';
import { toNative } from '../src/db/knex';
import { DEFAULT_ATTENTION } from '../src/config';
import { ruleNamed, ruleRows, type AttentionQuery, type RuleName } from '../src/rules';
import { testApp, type TestApp } from './support/app';
import { ATTENTION_KEPT, applied, expectKeptAfterEach, keptDrift, noDrift, rolledBack } from './support/rolled-back';

// What the overview and "Needs attention" read instead of computing it (migration 008), kept by
// triggers: each table must always equal its definition, the view kept_<name>_docs, after every kind
// of change to the data it comes from. Each change runs in a transaction that is rolled back.

const KEPT = ATTENTION_KEPT;
const drift = (client: pg.ClientBase | pg.Pool) => keptDrift(client, KEPT);
const NONE = noDrift(KEPT);

let fixture: TestApp;
let demo: TestApp;
beforeAll(() => {
  fixture = testApp('fixture');
  demo = testApp('demo');
});
afterAll(async () => Promise.all([fixture.close(), demo.close()]));

const q = (asOf: string, riderIds?: string[]): AttentionQuery => ({ asOf, settings: DEFAULT_ATTENTION, scope: {}, riderIds });
const ruleRiders = async (client: pg.ClientBase, rule: RuleName, asOf: string, riderIds: string[]) =>
  (await applied(client), await client.query(toNative(ruleRows(ruleNamed(rule)!, q(asOf, riderIds))))).rows.map((row) =>
    String(row.rider_id),
  );

describe('kept attention and overview data', () => {
  it('equals its definition after the bulk load of the demo data, and holds rows of every kind', async () => {
    expect(await drift(demo.pool)).toEqual(NONE);
    const { rows } = await demo.pool.query(KEPT.map(({ table }) => `SELECT count(*)::int AS n FROM ${table}`).join(' UNION ALL '));
    for (const row of rows) expect(row.n).toBeGreaterThan(0);
  });

  it('follows every kind of change to checks, assignments, exchanges, riders and products', async () => {
    const steps: Array<[string, string]> = [
      [
        'checks inserted (one statement, two riders)',
        `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
           (9501, 101, 1, '2025-01-10 08:00+00', false, true, true), (9502, 101, 1, '2025-01-11 08:00+00', true, true, false),
           (9503, 102, 2, '2025-01-12 08:07+00', true, true, true)`,
      ],
      [
        'a check inserted before the others of its rider',
        `INSERT INTO patrol_checks VALUES (9504, 101, 1, '2024-01-01 00:00+00', false, false, false)`,
      ],
      ['a check passed after all', 'UPDATE patrol_checks SET id_valid = true WHERE id = 9501'],
      ['a check moved in time', `UPDATE patrol_checks SET checked_at = '2025-01-13 23:59+00' WHERE id = 9502`],
      ['a check moved to another rider', 'UPDATE patrol_checks SET rider_id = 103 WHERE id = 9503'],
      ['a check deleted', 'DELETE FROM patrol_checks WHERE id = 9504'],
      [
        'items assigned',
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type) VALUES
           (2501, 107, 10, 11, '2024-06-01 10:00+00', 1, 0, 'assign'), (2502, 107, 20, 21, '2024-06-02 10:00+00', 1, 0, 'assign')`,
      ],
      ['an item returned', `UPDATE assignments SET deleted_at = '2025-01-05 10:00+00' WHERE id = 2501`],
      ['an item moved to another rider', 'UPDATE assignments SET rider_id = 101 WHERE id = 2502'],
      [
        'an exchange',
        `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
           VALUES (2503, 101, 20, 21, '2025-01-20 10:00+00', 1, 0, 'exchange');
         UPDATE assignments SET deleted_at = '2025-01-20 10:00+00' WHERE id = 2502;
         INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
           VALUES (7501, 2502, 2503, '2025-01-20 10:00+00', 'Lost item', 'Lost', 1)`,
      ],
      [
        'an exchange changed in type and time',
        `UPDATE product_exchanges SET replacement_type = 'Accident', exchanged_at = '2025-01-21 00:10+00' WHERE id = 7501`,
      ],
      ['the old item of an exchange moved to another rider', 'UPDATE assignments SET rider_id = 103 WHERE id = 2502'],
      ['a product given a longer exchange period', 'UPDATE products SET exchange_after_days = exchange_after_days + 45 WHERE id = 20'],
      ['a rider moved to another 3PL', 'UPDATE riders SET company_id = 2 WHERE id = 101'],
      ['a new rider', `INSERT INTO riders (id, name, company_id, country_id) VALUES (5001, 'New Rider', 3, 1)`],
      ['a rider deleted', 'DELETE FROM riders WHERE id = 5001'],
      ['an exchange deleted', 'DELETE FROM product_exchanges WHERE id = 7501'],
      ['an item deleted', 'DELETE FROM assignments WHERE id = 2503'],
      ['the exchange days rewritten for another time zone', `SELECT rider_list_set_zone('America/New_York')`],
      ['the rules given other thresholds', 'SELECT kept_rules_set(3, 30)'],
      ['every check truncated', 'TRUNCATE patrol_checks CASCADE'],
      ['every assignment truncated', 'TRUNCATE assignments CASCADE'],
    ];
    await expectKeptAfterEach(fixture.owner, KEPT, steps);
  });

  it('moves a rider in and out of the failing and unchecked rules, and an item out of the overdue one', async () => {
    await rolledBack(fixture.owner, async (client) => {
      const asOf = '2025-03-31';
      const check = (id: number, day: string, passed: boolean) =>
        client.query(`INSERT INTO patrol_checks VALUES ($1, 107, 1, $2, $3, true, true)`, [id, `${day} 08:00+00`, passed]);
      await client.query(`INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                          VALUES (2601, 107, 10, 11, '2024-01-02 10:00+00', 1, 0, 'assign')`);
      expect(await ruleRiders(client, 'unchecked', asOf, ['107'])).toEqual(['107']);
      expect(await ruleRiders(client, 'overdue-items', asOf, ['107'])).toEqual(['107']);
      await check(9601, '2025-03-01', false);
      expect(await ruleRiders(client, 'unchecked', asOf, ['107'])).toEqual([]);
      expect(await ruleRiders(client, 'failing-checks', asOf, ['107'])).toEqual([]);
      await check(9602, '2025-03-02', false);
      expect(await ruleRiders(client, 'failing-checks', asOf, ['107'])).toEqual(['107']);
      // The day before the second failure, the rider was not failing yet.
      expect(await ruleRiders(client, 'failing-checks', '2025-03-01', ['107'])).toEqual([]);
      await check(9603, '2025-03-03', true);
      expect(await ruleRiders(client, 'failing-checks', asOf, ['107'])).toEqual([]);
      // 60 days after the last check, the rider is unchecked again.
      expect(await ruleRiders(client, 'unchecked', '2025-05-02', ['107'])).toEqual(['107']);
      await client.query(`UPDATE assignments SET deleted_at = '2025-03-10 10:00+00' WHERE id = 2601`);
      expect(await ruleRiders(client, 'overdue-items', asOf, ['107'])).toEqual([]);
      expect(await ruleRiders(client, 'overdue-items', '2025-03-09', ['107'])).toEqual(['107']);
      expect(await drift(client)).toEqual(NONE);
    });
  });
});

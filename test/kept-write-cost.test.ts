// What the service's triggers add to a writer's statement does not grow with the fleet (migration 018):
// each kind of write, for the first and the last rider of the fleet, on the demo (300 riders) and on a
// dataset thirteen times larger (4,000), touches as many more rows with the triggers as without them.
// Rows touched (read by a scan, fetched through an index, inserted, updated, deleted: PostgreSQL's own
// counts for the transaction) measure the work without timing it; the old triggers read every
// assignment up to the rider's (a rider at the end of 4,000 read ~40,000 rows more than one of 300).
// Each write runs in a transaction that is rolled back.
import pg from 'pg';
import { useDatabase } from './support/databases';

type Write = (rider: string, ids: { assignment: string; product: string; variation: string }) => string[];

const WRITES: Record<string, { tables: string[]; write: Write }> = {
  assign: {
    tables: ['assignments'],
    write: (rider, { product, variation }) => [
      `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
       VALUES (990000001, ${rider}, ${product}, ${variation}, now(), (SELECT min(id) FROM app_users), 0, 'assign')`,
    ],
  },
  return: {
    tables: ['assignments', 'product_returns'],
    write: (_rider, { assignment }) => [
      `UPDATE assignments SET deleted_at = now() WHERE id = ${assignment}`,
      `INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition)
       VALUES (990000001, ${assignment}, now(), (SELECT min(id) FROM app_users), 'Good')`,
    ],
  },
  exchange: {
    tables: ['assignments', 'product_exchanges'],
    write: (rider, { assignment, product, variation }) => [
      `UPDATE assignments SET deleted_at = now() WHERE id = ${assignment}`,
      `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
       VALUES (990000002, ${rider}, ${product}, ${variation}, now(), (SELECT min(id) FROM app_users), 0, 'exchange')`,
      `INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
       VALUES (990000001, ${assignment}, 990000002, now(), 'Lost item', 'Lost', (SELECT min(id) FROM app_users))`,
    ],
  },
  check: {
    tables: ['patrol_checks', 'patrol_check_answers'],
    write: (rider) => [
      `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
       VALUES (990000001, ${rider}, (SELECT min(id) FROM patrollers), now(), true, false, true)`,
      `INSERT INTO patrol_check_answers (check_id, position, question_id, answer)
       SELECT 990000001, row_number() OVER (ORDER BY id), id, '"Yes"' FROM (SELECT id FROM questions ORDER BY id LIMIT 15) q`,
    ],
  },
  move: {
    tables: ['riders'],
    write: (rider) => [`UPDATE riders SET company_id = (SELECT max(id) FROM companies WHERE id <> riders.company_id) WHERE id = ${rider}`],
  },
  rename: { tables: ['riders'], write: (rider) => [`UPDATE riders SET name = name || ' Jr' WHERE id = ${rider}`] },
  'rename a product': {
    tables: ['products'],
    write: (_rider, { product }) => [`UPDATE products SET name = name || ' (new)' WHERE id = ${product}`],
  },
  'rename a variation': {
    tables: ['product_variations'],
    write: (_rider, { variation }) => [`UPDATE product_variations SET name = name || ' (new)' WHERE id = ${variation}`],
  },
};

const TOUCHED = `SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) + n_tup_ins + n_tup_upd + n_tup_del), 0)::int AS n
  FROM pg_stat_xact_all_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`;

/** Rows the statements touch, in a rolled-back transaction, with the service's triggers or without them. */
async function touched(client: pg.Client, tables: string[], statements: string[], triggers: boolean): Promise<number> {
  await client.query('BEGIN');
  try {
    if (!triggers) for (const table of tables) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    const before = (await client.query(TOUCHED)).rows[0].n;
    for (const statement of statements) await client.query(statement);
    return (await client.query(TOUCHED)).rows[0].n - before;
  } finally {
    await client.query('ROLLBACK');
  }
}

/** Per write kind and rider position, the rows the triggers add. */
async function addedRows(url: string): Promise<Record<string, number>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows: ends } = await client.query<{ rider: string }>(
      `(SELECT id AS rider FROM riders WHERE active_items > 0 ORDER BY id LIMIT 1) UNION ALL (SELECT id FROM riders WHERE active_items > 0 ORDER BY id DESC LIMIT 1)`,
    );
    const added: Record<string, number> = {};
    for (const [position, { rider }] of [
      ['first', ends[0]],
      ['last', ends[1]],
    ] as const) {
      const { rows } = await client.query(
        `SELECT a.id AS assignment, a.product_id AS product, a.variation_id AS variation
           FROM assignments a WHERE a.rider_id = $1 AND a.deleted_at IS NULL ORDER BY a.id LIMIT 1`,
        [rider],
      );
      for (const [kind, { tables, write }] of Object.entries(WRITES)) {
        const statements = write(rider, rows[0]);
        added[`${kind}, ${position} rider`] =
          (await touched(client, tables, statements, true)) - (await touched(client, tables, statements, false));
      }
    }
    return added;
  } finally {
    await client.end();
  }
}

describe('what the triggers add to a writer', () => {
  it('stays the same from 300 riders to 4,000, for every kind of write and the first and last rider, and is a few rows at most', async () => {
    const small = await addedRows(await useDatabase('demo'));
    const large = await addedRows(await useDatabase('largeCopy'));
    for (const what of Object.keys(small)) {
      // A few rows of the change log, and the statement trigger's reads of its own transition tables. (On
      // 300 riders the planner reads the small riders table whole for a rider's 3PL, so only the larger
      // dataset says how few.)
      expect({ what, few: large[what] <= 50 }).toEqual({ what, few: true });
      expect({ what, growth: large[what] - small[what] <= 2 }).toEqual({ what, growth: true });
    }
  });
});

import type pg from 'pg';
import { testApp, type TestApp } from './support/app';
import { ATTENTION_KEPT, RIDER_PARTS_KEPT, applied, keptDrift, noDrift, rolledBack, type Kept } from './support/rolled-back';

// A TRUNCATE of one of the data's tables (migration 036): the applier writes afresh the kept tables
// whose definitions read what it emptied, and no others, and every kept table then equals its
// definition.

const KEPT: Kept[] = [
  ...ATTENTION_KEPT,
  ...RIDER_PARTS_KEPT,
  { table: 'rider_list_entries', view: 'rider_list_entry_docs' },
  { table: 'rider_list_blocks', view: 'rider_list_block_counts' },
  { table: 'patrol_check_questioners', view: 'patrol_check_questioner_docs', columns: 'check_id, doc::text' },
  { table: 'kept_rider_name_grams', view: 'kept_rider_name_gram_docs' },
  { table: 'kept_rider_name_gram_counts', view: 'kept_rider_name_gram_count_docs' },
];
/** The kept tables, and the riders' item counts (kept on their rows), against their definitions. */
async function drift(client: pg.ClientBase) {
  const tables = await keptDrift(client, KEPT);
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM riders r LEFT JOIN kept_rider_docs d ON d.rider_id = r.id
      WHERE (r.active_items, r.returned_items) IS DISTINCT FROM (coalesce(d.active_items, 0), coalesce(d.returned_items, 0))`,
  );
  return { ...tables, 'riders.active_items': rows[0].n };
}
const NONE = { ...noDrift(KEPT), 'riders.active_items': 0 };
const WATCHED = KEPT.map(({ table }) => table);

let demo: TestApp;
beforeAll(() => {
  demo = testApp('demo');
});
afterAll(() => demo.close());

/**
 * Per kept table, the rows this backend inserted and deleted in it (its statistics, not yet flushed)
 * and the file it is stored in (a TRUNCATE gives it a new one).
 */
async function touched(client: pg.ClientBase): Promise<Map<string, string>> {
  const { rows } = await client.query<{ table: string; n: string }>(
    `SELECT t AS table,
            (pg_stat_get_xact_tuples_inserted(t::regclass) + pg_stat_get_xact_tuples_deleted(t::regclass)) || ' ' || pg_relation_filenode(t::regclass) AS n
       FROM unnest($1::text[]) t`,
    [WATCHED],
  );
  return new Map(rows.map((row) => [row.table, row.n]));
}

/** The kept tables `work` inserted or deleted rows of, or emptied. */
async function written(client: pg.ClientBase, work: () => Promise<unknown>): Promise<string[]> {
  const before = await touched(client);
  await work();
  const after = await touched(client);
  return WATCHED.filter((table) => after.get(table) !== before.get(table)).sort();
}

const COUNTS = ['kept_check_quarters', 'kept_exchange_quarters', 'kept_exchange_days'];
const RIDER_PARTS = ['kept_riders', 'kept_rider_held', 'kept_held_items', 'kept_company_riders', 'rider_list_blocks'];
const RULES = ['kept_rule_riders', 'kept_rule_days'];

describe('a TRUNCATE of a source table', () => {
  // What each TRUNCATE leads the applier to write (a kept table that the TRUNCATE empties itself, by its
  // foreign key, as patrol_check_questioners with the checks, is not written again).
  const cases: Array<[statement: string, rewritten: string[]]> = [
    ['TRUNCATE patrol_check_answers', ['patrol_check_questioners']],
    ['TRUNCATE product_exchanges', COUNTS],
    ['TRUNCATE patrol_checks CASCADE', ['patrol_check_questioners', 'kept_check_gaps', ...RULES, ...COUNTS]],
    ['TRUNCATE assignments CASCADE', [...RIDER_PARTS, 'rider_list_entries', 'kept_assignment_days', ...RULES, ...COUNTS]],
  ];

  it.each(cases)('%s: writes afresh what reads the emptied tables, and nothing else', async (statement, rewritten) => {
    await rolledBack(demo.owner, async (client) => {
      await applied(client);
      const writes = await written(client, async () => {
        await client.query(statement);
        await applied(client);
      });
      expect(writes).toEqual([...rewritten].sort());
      expect(await drift(client)).toEqual(NONE);
    });
  });

  it('TRUNCATE riders CASCADE: every kept table equals its definition', async () => {
    await rolledBack(demo.owner, async (client) => {
      await client.query('TRUNCATE riders CASCADE');
      expect(await drift(client)).toEqual(NONE);
      const { rows } = await client.query(
        `SELECT (SELECT count(*)::int FROM kept_rule_riders) + (SELECT count(*)::int FROM kept_check_gaps) AS n`,
      );
      expect(rows[0].n).toBe(0);
    });
  });

  it('empties a kept table left without a row by a DELETE when a reader holds it (no wait, nothing lost)', async () => {
    const reader = await demo.owner.connect();
    try {
      await reader.query('BEGIN');
      const { rows } = await reader.query('SELECT count(*)::int AS n FROM patrol_check_questioners');
      await rolledBack(demo.owner, async (client) => {
        await applied(client);
        const file = async () => (await client.query(`SELECT pg_relation_filenode('patrol_check_questioners') AS f`)).rows[0].f;
        const before = await file();
        await client.query('TRUNCATE patrol_check_answers');
        await applied(client); // waits lock_timeout for the reader, then deletes instead
        expect(await file()).toBe(before);
        expect((await client.query('SELECT count(*)::int AS n FROM patrol_check_questioners')).rows[0].n).toBe(0);
        expect(await drift(client)).toEqual(NONE);
      });
      // The reader's transaction saw the table throughout, as it was.
      expect((await reader.query('SELECT count(*)::int AS n FROM patrol_check_questioners')).rows[0].n).toBe(rows[0].n);
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
  });

  it('logs the table it emptied, so that the applier knows what to write (the check can fail)', async () => {
    await rolledBack(demo.owner, async (client) => {
      await applied(client);
      await client.query('TRUNCATE patrol_check_answers');
      const { rows } = await client.query(`SELECT kind, tag FROM kept_changes WHERE kind = 'T'`);
      expect(rows).toEqual([{ kind: 'T', tag: 'patrol_check_answers' }]);
    });
  });

  it('logged without a table (before migration 036) still rebuilds everything', async () => {
    await rolledBack(demo.owner, async (client) => {
      await applied(client);
      const writes = await written(client, async () => {
        await client.query(`INSERT INTO kept_changes (kind) VALUES ('T')`);
        await applied(client);
      });
      expect(writes).toEqual([...WATCHED].sort());
      expect(await drift(client)).toEqual(NONE);
    });
  });

  it('leaves the rest of its batch applied: a check written with the TRUNCATE of the answers is kept', async () => {
    await rolledBack(demo.owner, async (client) => {
      await applied(client);
      const { rows } = await client.query(`SELECT id, rider_id FROM patrol_checks ORDER BY checked_at DESC LIMIT 1`);
      await client.query(`TRUNCATE patrol_check_answers`);
      await client.query(`UPDATE patrol_checks SET id_valid = NOT id_valid WHERE id = $1`, [rows[0].id]);
      expect(await drift(client)).toEqual(NONE);
    });
  });
});

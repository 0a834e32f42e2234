import type pg from 'pg';

/** Runs `work` on one connection of `pool` in a transaction that is rolled back whatever happens. */
export async function rolledBack(
  pool: { connect(): Promise<pg.PoolClient> },
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/**
 * A table kept by triggers, and the view that is its one definition; `columns`: the columns compared,
 * read alike from both (a json column as ::text, having no equality).
 */
export interface Kept {
  table: string;
  view: string;
  columns?: string;
}

/** The attention and overview data (migrations 008 and 023), each table with its view. */
export const ATTENTION_KEPT: readonly Kept[] = [
  { table: 'kept_check_gaps', view: 'kept_check_gap_docs' },
  { table: 'kept_assignment_days', view: 'kept_assignment_day_docs' },
  { table: 'kept_check_quarters', view: 'kept_check_quarter_docs' },
  { table: 'kept_exchange_quarters', view: 'kept_exchange_quarter_docs' },
  { table: 'kept_exchange_days', view: 'kept_exchange_day_docs' },
  { table: 'kept_held_items', view: 'kept_held_item_docs' },
  { table: 'kept_company_riders', view: 'kept_company_rider_docs' },
  { table: 'kept_rule_riders', view: 'kept_rule_rider_docs' },
  { table: 'kept_rule_days', view: 'kept_rule_day_docs' },
];

/**
 * Writes what the change log holds into the kept data now, in the caller's transaction (which sees its
 * own changes): what the service's applier does in the background (migration 018).
 */
export async function applied(client: Pick<pg.ClientBase, 'query'>): Promise<void> {
  await client.query('SELECT kept_apply_all()');
}

/** Each rider's part in the counts per 3PL as last applied (migration 018). */
export const RIDER_PARTS_KEPT: readonly Kept[] = [
  { table: 'kept_riders', view: 'kept_rider_docs' },
  { table: 'kept_rider_held', view: 'kept_rider_held_docs' },
];

/**
 * Rows of each kept table that its definition does not have, and the other way round (0 each when
 * kept right), once the change log has been applied: what the service's applier writes in the
 * background, written here first in the caller's transaction (which sees its own changes).
 */
export async function keptDrift(client: pg.ClientBase | pg.Pool, kept: readonly Kept[]): Promise<Record<string, number>> {
  await applied(client);
  const query = kept
    .map(({ table, view, columns }) => {
      const rowsOf = columns ? `SELECT ${columns} FROM ${table}` : `TABLE ${table}`;
      const defined = columns ? `SELECT ${columns} FROM ${view}` : `TABLE ${view}`;
      return `SELECT '${table}' AS name, (SELECT count(*)::int FROM ((${rowsOf} EXCEPT ALL ${defined}) UNION ALL (${defined} EXCEPT ALL ${rowsOf})) d) AS n`;
    })
    .join(' UNION ALL ');
  // Without JIT: compiling the plan of a dozen views took 6 s where running it takes 0.4 s (one
  // transaction, so the setting ends with it, or with the statement outside one).
  const results = (await client.query(`SELECT set_config('jit', 'off', true); ${query}`)) as unknown as pg.QueryResult<{
    name: string;
    n: number;
  }>[];
  return Object.fromEntries(results[1].rows.map((row) => [row.name, row.n]));
}

/** No drift in any of the kept tables. */
export const noDrift = (kept: readonly Kept[]) => Object.fromEntries(kept.map(({ table }) => [table, 0]));

/**
 * Runs each step (what it is, its SQL) in one rolled-back transaction, and after each expects every
 * kept table to equal its definition.
 */
export async function expectKeptAfterEach(
  pool: { connect(): Promise<pg.PoolClient> },
  kept: readonly Kept[],
  steps: ReadonlyArray<readonly [what: string, statement: string]>,
): Promise<void> {
  await rolledBack(pool, async (client) => {
    for (const [what, statement] of steps) {
      await client.query(statement);
      expect({ what, ...(await keptDrift(client, kept)) }).toEqual({ what, ...noDrift(kept) });
    }
  });
}

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

import type { Knex } from 'knex';

// Request counts of the rate limits (per token, per address), shared by every process and instance of
// the service, so that a token allowed 1,200 requests a minute gets 1,200 in all. One row per key and
// window. UNLOGGED: counts that a crash may lose are fine, and they need no WAL (nor replicas).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE access.rate_limits (
      key      text        PRIMARY KEY,
      hits     integer     NOT NULL,
      reset_at timestamptz NOT NULL
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE access.rate_limits');
}

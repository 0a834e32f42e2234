import type { Knex } from 'knex';

// The applier refreshes a renamed or moved rider's name bigrams (migration 025) by deleting the rider's
// entries first: by `rider_id`, which no index of kept_rider_name_grams began with, so each batch read
// the whole table (9 rows per rider: 53 ms at 100,000 riders, 0.5 s at 1,000,000), and a committed write
// took 631 ms to show in the kept data at 1,000,000 riders where it took 76 ms before 025. Only the
// applier writes this table: the writers' statements pay nothing for the index.

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX kept_rider_name_grams_rider_idx ON kept_rider_name_grams (rider_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX kept_rider_name_grams_rider_idx`);
}

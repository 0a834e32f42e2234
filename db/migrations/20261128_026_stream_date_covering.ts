import type { Knex } from 'knex';

// A full /v2/assign-list and /v2/product-exchanges stream in their date order from the first byte, as
// /v2/product-returns does since migration 024 (issue 43): each table's date index carries what the
// answer reads (the rider, 3PL and items kept on each row by migration 011, and the row's own values),
// so PostgreSQL reads the index alone in order, looks up the few products, variations, users and 3PLs,
// and sorts nothing (3.17 and 1.26 s before the first byte at 100,000 riders). Still one date index per
// table: a writer's insert writes as many index entries as before, each wider (about 50 and 70 bytes).

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX assignments_date_idx;
    CREATE INDEX assignments_date_idx ON assignments (assigned_at, id)
      INCLUDE (rider_id, company_id, product_id, variation_id, assigned_by, assign_method);
    DROP INDEX product_exchanges_date_idx;
    CREATE INDEX product_exchanges_date_idx ON product_exchanges (exchanged_at, id)
      INCLUDE (rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id,
               exchange_type, replacement_type, processed_by);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX assignments_date_idx;
    CREATE INDEX assignments_date_idx ON assignments (assigned_at, id);
    DROP INDEX product_exchanges_date_idx;
    CREATE INDEX product_exchanges_date_idx ON product_exchanges (exchanged_at, id);
  `);
}

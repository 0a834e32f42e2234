import type { Knex } from 'knex';

// The returns' Condition and the exchanges' Exchange type are selects of the values present within
// the supervisor's 3PL (src/queries/choices.ts distinctValues): one index probe per value needs an
// index led by the 3PL and then the value. Without a 3PL the columns' own indexes serve.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX product_returns_company_condition_idx ON product_returns (company_id, condition);
    CREATE INDEX product_exchanges_company_type_idx    ON product_exchanges (company_id, exchange_type);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX product_returns_company_condition_idx, product_exchanges_company_type_idx');
}

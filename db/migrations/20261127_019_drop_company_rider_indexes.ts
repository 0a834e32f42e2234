import type { Knex } from 'knex';

// A writer's bulk import paid most of what the kept list keys cost it (migration 011) in these four
// indexes: each new row's (3PL, rider) key lands on a leaf of its own, so 10,000 checks over a fleet of
// 1,000,000 riders dirtied about 10,000 more index pages than the same import without the service.
// They served one order only, "by 3PL, then rider", of the checks, equipment, returns and exchanges lists.
// Those lists now sort by 3PL, then date (src/queries/*.ts), from the (3PL, date) indexes migration 011
// made, whose new keys all land at the end of their 3PL's range: a handful of hot pages, whatever the
// fleet's size (docs/OPERATIONS.md, "What a writer pays").
const INDEXES: Array<[string, string]> = [
  ['patrol_checks_company_rider_idx', 'patrol_checks (company_id, rider_id, id)'],
  ['assignments_company_rider_idx', 'assignments (company_id, rider_id, assigned_at, id)'],
  ['product_returns_company_rider_idx', 'product_returns (company_id, rider_id, id)'],
  ['product_exchanges_company_rider_idx', 'product_exchanges (company_id, rider_id, id)'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(INDEXES.map(([name]) => `DROP INDEX ${name};`).join('\n'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(INDEXES.map(([name, on]) => `CREATE INDEX ${name} ON ${on};`).join('\n'));
}

import type { Knex } from 'knex';

// The list keys' row triggers (migration 011) write a row's rider, 3PL and items from their sources
// before it is inserted or its sources change. The applier's own updates of those columns (a moved
// rider's rows, kept_apply_list_keys()) set them from the same sources in the same statement, and the
// triggers then read them all again, one look-up per row: a ninth of the applier's time in the writers'
// mix at 100,000 riders. The triggers now skip the statements of the applier (kept.applying is on only
// inside kept_apply(), SET by the function itself); every other writer's rows are written as before.

const SKIP = `WHEN (current_setting('kept.applying', true) IS DISTINCT FROM 'on')`;

const TRIGGERS = [
  ['assignments_list_keys', 'assignments', 'rider_id, company_id', 'rider_company_list_key()'],
  ['patrol_checks_list_keys', 'patrol_checks', 'rider_id, company_id', 'rider_company_list_key()'],
  [
    'product_exchanges_list_keys',
    'product_exchanges',
    'old_assignment_id, new_assignment_id, rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id',
    'product_exchanges_list_keys()',
  ],
  [
    'product_returns_list_keys',
    'product_returns',
    'assignment_id, rider_id, company_id, product_id, variation_id',
    'product_returns_list_keys()',
  ],
] as const;

const create = (when: string) =>
  TRIGGERS.map(
    ([name, table, columns, fn]) => `
    DROP TRIGGER ${name} ON ${table};
    CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE OF ${columns} ON ${table}
      FOR EACH ROW ${when} EXECUTE FUNCTION ${fn};`,
  ).join('\n');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(create(SKIP));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(create(''));
}

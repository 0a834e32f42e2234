// Each kept table, and the list keys kept on the data's rows, against its definition (its *_docs view):
// after a bench, or by hand on any copy once kept_freshness() says nothing is pending:
//
//   npm run -s build && node dist/bench/kept-compare.js --url <database URL>
//
// Prints the tables that differ and exits 1 when one does.
import { parseArgs } from 'node:util';
import pg from 'pg';

/** Each kept table (and the data's list keys) against its definition, as [name, kept rows, defining query]. */
export const KEPT: Array<[string, string, string]> = [
  ['kept_check_quarters', 'TABLE kept_check_quarters', 'TABLE kept_check_quarter_docs'],
  ['kept_exchange_quarters', 'TABLE kept_exchange_quarters', 'TABLE kept_exchange_quarter_docs'],
  ['kept_exchange_days', 'TABLE kept_exchange_days', 'TABLE kept_exchange_day_docs'],
  ['kept_check_gaps', 'TABLE kept_check_gaps', 'TABLE kept_check_gap_docs'],
  ['kept_assignment_days', 'TABLE kept_assignment_days', 'TABLE kept_assignment_day_docs'],
  ['kept_held_items', 'TABLE kept_held_items', 'TABLE kept_held_item_docs'],
  ['kept_company_riders', 'TABLE kept_company_riders', 'TABLE kept_company_rider_docs'],
  ['kept_riders', 'TABLE kept_riders', 'TABLE kept_rider_docs'],
  ['kept_rider_held', 'TABLE kept_rider_held', 'TABLE kept_rider_held_docs'],
  ['kept_rider_name_grams', 'TABLE kept_rider_name_grams', 'TABLE kept_rider_name_gram_docs'],
  ['kept_rider_name_gram_counts', 'TABLE kept_rider_name_gram_counts', 'TABLE kept_rider_name_gram_count_docs'],
  ['kept_rule_riders', 'TABLE kept_rule_riders', 'TABLE kept_rule_rider_docs'],
  ['kept_rule_days', 'TABLE kept_rule_days', 'TABLE kept_rule_day_docs'],
  ['rider_list_entries', 'TABLE rider_list_entries', 'TABLE rider_list_entry_docs'],
  ['rider_list_blocks', 'TABLE rider_list_blocks', 'TABLE rider_list_block_counts'],
  ['patrol_check_questioners', 'TABLE patrol_check_questioners', 'TABLE patrol_check_questioner_docs'],
  ['list keys of checks', 'SELECT id, company_id FROM patrol_checks', 'TABLE patrol_check_list_key_docs'],
  ['list keys of assignments', 'SELECT id, company_id FROM assignments', 'TABLE assignment_list_key_docs'],
  [
    'list keys of returns',
    'SELECT id, rider_id, company_id, product_id, variation_id FROM product_returns',
    'TABLE product_return_list_key_docs',
  ],
  [
    'list keys of exchanges',
    'SELECT id, rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id FROM product_exchanges',
    'TABLE product_exchange_list_key_docs',
  ],
];

/**
 * Each kept table against its definition: the names of those that differ. Compared by their rows'
 * count and the sum of their rows' hashes (one pass over each, no sort: EXCEPT ALL over the largest
 * tables ran out of temporary disk at 1,000,000 riders); a difference would have to cancel out in a
 * 64-bit sum to go unseen.
 */
export async function differences(db: pg.Client): Promise<string[]> {
  const differing: string[] = [];
  for (const [name, kept, docs] of KEPT) {
    const digest = async (relation: string) =>
      JSON.stringify(
        (await db.query(`SELECT count(*) AS n, sum(hashtextextended(d::text, 0)::numeric) AS h FROM (${relation}) d`)).rows[0],
      );
    const [a, b] = [await digest(kept), await digest(docs)];
    if (a !== b) differing.push(name);
  }
  return differing;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: 'string' } } });
  if (!values.url) throw new Error('usage: node dist/bench/kept-compare.js --url <database URL>');
  const db = new pg.Client({ connectionString: values.url, application_name: 'kept-compare' });
  await db.connect();
  try {
    const differing = await differences(db);
    console.log(
      differing.length ? `differing from their definitions: ${differing.join(', ')}` : `all ${KEPT.length} equal their definitions`,
    );
    if (differing.length) process.exitCode = 1;
  } finally {
    await db.end();
  }
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).stack ?? error);
    process.exitCode = 1;
  });

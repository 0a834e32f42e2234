import type { Knex } from 'knex';
import { COUNTS } from './20261125_008_attention_kept/counts';
import { GAPS_AND_DAYS } from './20261125_008_attention_kept/gaps-and-days';
import { TRIGGERS } from './20261125_008_attention_kept/triggers';

// What the overview and "Needs attention" read instead of computing it from every check, item and
// exchange on each visit, kept by triggers. At 100,000 riders the two pages took 1.7 s and 2.4 s;
// their statements now read index ranges whose size does not follow the fleet (see docs/OPERATIONS.md,
// "Kept attention and overview data").
//
// 1. kept_check_gaps: per rider, each stretch of time between two of its patrol checks, from a check
//    (or from -infinity before the first) to the next one (NULL: none yet), with how many failed checks
//    in a row end at the check that opens it. "Failing at the end of day T" is the gap that holds T's
//    end opened by a check of a long enough streak; "not checked lately" is a gap that covers the whole
//    window before T's end. Both are GiST range look-ups, at any as-of day and any threshold.
// 2. kept_assignment_days: per assignment, its exchange day (assigned + the product's days, in the zone
//    of rider_list_zone) and its return; "past its exchange day at T" is a range look-up too.
// 3. kept_check_quarters, kept_exchange_quarters, kept_exchange_days: checks (and passed ones) and
//    exchanges per 3PL of the rider and per quarter of an hour (every time zone's days start on one),
//    and exchanges per UTC day as well; a window's count is a sum over a bounded number of rows.
// 4. kept_held_items and kept_company_riders: items held per 3PL and product; riders, riders holding
//    and items held per 3PL.
//
// Each table has a view that is its one definition (kept_*_docs); the triggers write what the view
// returns for the keys a change touches (or add the change's difference, for the two counters of 4),
// the bulk rebuild writes the whole view, and the tests compare table and view after each kind of
// change. The functions run as the owner, so a system that writes the data needs no grant on them.
//
// Its parts are in ./20261125_008_attention_kept/: the gaps and exchange days (1, 2), the counts (3, 4),
// and the rebuild and triggers. (Each part begins with a new line and ends with its last statement.)
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION kept_quarter(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN date_bin('15 minutes', t, timestamptz '2000-01-01 00:00:00+00');
    CREATE FUNCTION kept_utc_day(t timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN (t AT TIME ZONE 'UTC')::date;
${GAPS_AND_DAYS}
${COUNTS}
${TRIGGERS}

    SELECT kept_attention_rebuild();
    ANALYZE kept_check_gaps, kept_assignment_days, kept_check_quarters, kept_exchange_quarters, kept_exchange_days,
      kept_held_items, kept_company_riders;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER rider_list_zone_attention ON rider_list_zone;
    DROP TRIGGER riders_attention ON riders;
    DROP TRIGGER products_attention ON products;
    DROP TRIGGER assignments_attention ON assignments;
    DROP TRIGGER product_exchanges_insert_attention ON product_exchanges;
    DROP TRIGGER product_exchanges_update_attention ON product_exchanges;
    DROP TRIGGER product_exchanges_delete_attention ON product_exchanges;
    DROP TRIGGER patrol_checks_insert_attention ON patrol_checks;
    DROP TRIGGER patrol_checks_update_attention ON patrol_checks;
    DROP TRIGGER patrol_checks_delete_attention ON patrol_checks;
    DROP TRIGGER riders_truncate_attention ON riders;
    DROP TRIGGER assignments_truncate_attention ON assignments;
    DROP TRIGGER patrol_checks_truncate_attention ON patrol_checks;
    DROP TRIGGER product_exchanges_truncate_attention ON product_exchanges;
    DROP FUNCTION rider_list_zone_keep_attention(), riders_keep_attention(), products_keep_attention(), assignments_keep_attention(),
      product_exchanges_keep_attention(), patrol_checks_keep_attention(), kept_attention_truncated(), kept_attention_rebuild(),
      kept_company_riders_add(bigint, integer, integer, integer), kept_held_items_add(bigint, bigint, integer),
      kept_exchange_counts_refresh(timestamptz[]), kept_check_quarters_refresh(timestamptz[]),
      kept_assignment_days_refresh(bigint[]), kept_check_gaps_refresh(bigint[]);
    DROP VIEW kept_company_rider_docs, kept_held_item_docs, kept_exchange_day_docs, kept_exchange_quarter_docs,
      kept_check_quarter_docs, kept_assignment_day_docs, kept_check_gap_docs;
    DROP TABLE kept_company_riders, kept_held_items, kept_exchange_days, kept_exchange_quarters, kept_check_quarters,
      kept_assignment_days, kept_check_gaps;
    DROP FUNCTION kept_utc_day(timestamptz), kept_quarter(timestamptz);
  `);
}

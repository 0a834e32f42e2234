import type { Knex } from 'knex';

// The checks list's `result=failed` (src/queries/patrol-checks.ts): a check fails when any of its
// three validations fails, about a quarter of all checks. Without an index of those, the capped count
// and each page skipped by number read every check until enough failed ones came by, and a day's or a
// 3PL's failed checks (the overview's links) read all checks of the range: at 100,000 riders (1M
// checks) 15–82 ms a count, 21 ms at page 400. With this one, in the list's default order and with the
// rider for the 3PL, those read only failed checks: 1.5–9 ms, and 1.6 ms (docs/BENCHMARKS.md).
// The condition is written as the filter writes it, so the planner matches them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX patrol_checks_failed_idx ON patrol_checks (checked_at, id) INCLUDE (rider_id)
      WHERE NOT (id_valid AND plate_valid AND sticker_valid);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX patrol_checks_failed_idx');
}

import type { Knex } from 'knex';

// The checks list's `result=failed` (src/queries/patrol-checks.ts): a check fails when any of its
// three validations fails, about a quarter of all checks. Without an index of those, the capped count
// and each page skipped by number read every check until enough failed ones came by, and a day's or a
// 3PL's failed checks (the overview's links) read all checks of the range: at 100,000 riders (1M
// checks) 12–90 ms a count, 25 ms at page 400. This one holds the failed checks in the list's default
// order, with the rider for the 3PL: 0.3–12 ms and 2 ms (docs/runs/ADMIN-BENCHMARKS.md). Its condition is written
// as the filter writes it, so the planner matches them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX patrol_checks_failed_idx ON patrol_checks (checked_at, id) INCLUDE (rider_id)
      WHERE NOT (id_valid AND plate_valid AND sticker_valid);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX patrol_checks_failed_idx');
}

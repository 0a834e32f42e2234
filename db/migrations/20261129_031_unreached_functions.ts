import type { Knex } from 'knex';

// The schema holds only what runs. Two generations of kept data had left 31 functions that nothing
// reaches: the trigger functions that wrote the kept data inside each writer's statement until
// migration 018 (their triggers are gone), the locking *_refresh wrappers of migration 017 and the
// quarters' recounts migration 029 replaced with the writers' deltas, and the incremental helpers
// only those called. Nothing calls them (test/schema-reached.test.ts holds it: every function is
// reached by a trigger, by the service, its scripts or its docs, or by a function, view or default
// that is), so a reader who asks what keeps a table finds one answer.

const UNREACHED = [
  'assignments_keep_attention()',
  'assignments_list_keys_follow()',
  'assignments_refresh_rider_list_entries()',
  'assignments_truncate_rider_list_entries()',
  'kept_assignment_days_refresh(bigint[])',
  'kept_assignment_days_refresh_unlocked(bigint[])',
  'kept_attention_truncated()',
  'kept_check_gaps_refresh(bigint[])',
  'kept_check_quarters_refresh(timestamptz[])',
  'kept_check_quarters_refresh_unlocked(timestamptz[])',
  'kept_company_riders_add(bigint, integer, integer, integer)',
  'kept_exchange_counts_refresh(timestamptz[])',
  'kept_exchange_counts_refresh_unlocked(timestamptz[])',
  'kept_held_items_add(bigint, bigint, integer)',
  'kept_lock(regclass, text[])',
  'patrol_check_answers_refresh()',
  'patrol_check_answers_truncate_questioners()',
  'patrol_check_questioners_refresh(bigint[])',
  'patrol_checks_keep_attention()',
  'product_exchanges_keep_attention()',
  'products_keep_attention()',
  'products_refresh_rider_list_entries()',
  'questions_refresh_questioners()',
  'rider_list_blocks_add(bigint, bigint, integer, integer, integer)',
  'rider_list_entries_refresh(bigint[])',
  'riders_count_items()',
  'riders_keep_attention()',
  'riders_keep_list_blocks()',
  'riders_list_keys()',
  'riders_refresh_rider_list_entries()',
  'riders_reset_item_counts()',
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(UNREACHED.map((f) => `DROP FUNCTION ${f};`).join('\n'));
}

// What they did is in the migrations that wrote them; going back is restoring the backup taken before
// this one (docs/OPERATIONS.md, "Migrations").
export async function down(): Promise<void> {
  throw new Error('Migration 031 (unreached functions dropped) cannot be undone: restore the backup taken before it.');
}

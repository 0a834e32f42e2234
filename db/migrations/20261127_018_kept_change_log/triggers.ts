// Migration 018's triggers: those that kept the data inside the writers' statements (gone), and the log's that replace them.

/** The triggers that kept the data inside the writers' statements, as pg_get_triggerdef gives them (for down). */
export const SYNCHRONOUS_TRIGGERS: Array<[table: string, name: string, definition: string]> = [
  [
    'assignments',
    'assignments_attention',
    `AFTER INSERT OR DELETE OR UPDATE OF id, rider_id, product_id, assigned_at, deleted_at ON assignments FOR EACH ROW EXECUTE FUNCTION assignments_keep_attention()`,
  ],
  [
    'assignments',
    'assignments_count_items',
    `AFTER INSERT OR DELETE OR UPDATE OF rider_id, deleted_at ON assignments FOR EACH ROW EXECUTE FUNCTION riders_count_items()`,
  ],
  [
    'assignments',
    'assignments_delete_rider_list_entries',
    `AFTER DELETE ON assignments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries()`,
  ],
  [
    'assignments',
    'assignments_insert_rider_list_entries',
    `AFTER INSERT ON assignments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries()`,
  ],
  [
    'assignments',
    'assignments_update_rider_list_entries',
    `AFTER UPDATE ON assignments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries()`,
  ],
  [
    'assignments',
    'assignments_list_keys_follow',
    `AFTER UPDATE OF rider_id, product_id, variation_id ON assignments FOR EACH ROW WHEN ((OLD.rider_id, OLD.product_id, OLD.variation_id) IS DISTINCT FROM (NEW.rider_id, NEW.product_id, NEW.variation_id)) EXECUTE FUNCTION assignments_list_keys_follow()`,
  ],
  [
    'assignments',
    'assignments_truncate_attention',
    `AFTER TRUNCATE ON assignments FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated()`,
  ],
  [
    'assignments',
    'assignments_truncate_counts',
    `AFTER TRUNCATE ON assignments FOR EACH STATEMENT EXECUTE FUNCTION riders_reset_item_counts()`,
  ],
  [
    'assignments',
    'assignments_truncate_rider_list_entries',
    `AFTER TRUNCATE ON assignments FOR EACH STATEMENT EXECUTE FUNCTION assignments_truncate_rider_list_entries()`,
  ],
  [
    'companies',
    'companies_rider_list_entries',
    `AFTER UPDATE OF name ON companies FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION riders_refresh_rider_list_entries()`,
  ],
  [
    'countries',
    'countries_rider_list_entries',
    `AFTER UPDATE OF code ON countries FOR EACH ROW WHEN (OLD.code IS DISTINCT FROM NEW.code) EXECUTE FUNCTION riders_refresh_rider_list_entries()`,
  ],
  [
    'patrol_check_answers',
    'patrol_check_answers_delete_questioner',
    `AFTER DELETE ON patrol_check_answers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh()`,
  ],
  [
    'patrol_check_answers',
    'patrol_check_answers_insert_questioner',
    `AFTER INSERT ON patrol_check_answers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh()`,
  ],
  [
    'patrol_check_answers',
    'patrol_check_answers_update_questioner',
    `AFTER UPDATE ON patrol_check_answers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh()`,
  ],
  [
    'patrol_check_answers',
    'patrol_check_answers_truncate_questioner',
    `AFTER TRUNCATE ON patrol_check_answers FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_truncate_questioners()`,
  ],
  [
    'patrol_checks',
    'patrol_checks_delete_attention',
    `AFTER DELETE ON patrol_checks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention()`,
  ],
  [
    'patrol_checks',
    'patrol_checks_insert_attention',
    `AFTER INSERT ON patrol_checks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention()`,
  ],
  [
    'patrol_checks',
    'patrol_checks_update_attention',
    `AFTER UPDATE ON patrol_checks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention()`,
  ],
  [
    'patrol_checks',
    'patrol_checks_truncate_attention',
    `AFTER TRUNCATE ON patrol_checks FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated()`,
  ],
  [
    'product_exchanges',
    'product_exchanges_delete_attention',
    `AFTER DELETE ON product_exchanges REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention()`,
  ],
  [
    'product_exchanges',
    'product_exchanges_insert_attention',
    `AFTER INSERT ON product_exchanges REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention()`,
  ],
  [
    'product_exchanges',
    'product_exchanges_update_attention',
    `AFTER UPDATE ON product_exchanges REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention()`,
  ],
  [
    'product_exchanges',
    'product_exchanges_truncate_attention',
    `AFTER TRUNCATE ON product_exchanges FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated()`,
  ],
  [
    'product_variations',
    'product_variations_rider_list_entries',
    `AFTER UPDATE OF name ON product_variations FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION products_refresh_rider_list_entries()`,
  ],
  [
    'products',
    'products_attention',
    `AFTER UPDATE OF exchange_after_days ON products FOR EACH ROW WHEN (OLD.exchange_after_days IS DISTINCT FROM NEW.exchange_after_days) EXECUTE FUNCTION products_keep_attention()`,
  ],
  [
    'products',
    'products_rider_list_entries',
    `AFTER UPDATE OF name ON products FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION products_refresh_rider_list_entries()`,
  ],
  [
    'questions',
    'questions_refresh_questioners',
    `AFTER UPDATE ON questions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION questions_refresh_questioners()`,
  ],
  [
    'riders',
    'riders_attention',
    `AFTER INSERT OR DELETE OR UPDATE OF id, company_id, active_items ON riders FOR EACH ROW EXECUTE FUNCTION riders_keep_attention()`,
  ],
  [
    'riders',
    'riders_list_blocks',
    `AFTER INSERT OR DELETE OR UPDATE OF id, company_id, active_items, returned_items ON riders FOR EACH ROW EXECUTE FUNCTION riders_keep_list_blocks()`,
  ],
  [
    'riders',
    'riders_list_keys',
    `AFTER UPDATE OF company_id ON riders FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id) EXECUTE FUNCTION riders_list_keys()`,
  ],
  [
    'riders',
    'riders_rider_list_entries',
    `AFTER UPDATE OF company_id, country_id ON riders FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id OR OLD.country_id IS DISTINCT FROM NEW.country_id) EXECUTE FUNCTION riders_refresh_rider_list_entries()`,
  ],
  ['riders', 'riders_truncate_attention', `AFTER TRUNCATE ON riders FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated()`],
];

// The log's kinds: what one row of kept_changes asks kept_apply() to write afresh (`id` the row named,
// `at` a quarter of an hour):
// - r: a rider's row (new, gone, moved to another 3PL or country): all of the rider's kept data
// - h: a rider's items: its counts, list entry, exchange days, its part in the 3PL counts (and, for a rider
//   that moved, its items' list keys)
// - g: a rider's checks: its gaps between checks (and, for a rider that moved, its checks' 3PL)
// - k: an assignment given to another rider or item: the list keys of its return and exchanges, their quarters
// - c: a check's answers: its questioner array
// - q: checks in the quarter of an hour at `at`: its counts per 3PL
// - x: exchanges in the quarter of an hour at `at`: its counts, and its UTC day
// - e: a rider's list entry only (a name it shows changed)
// - p: a product (name, exchange period): each holder's items, in later batches
// - v: a variation's name: each holder's entry, in later batches
// - o: a 3PL's name: each of its riders' entry, in later batches
// - n: a country's code: each of its riders' entry, in later batches
// - Q: a question's text or category: each answered check's array, in later batches
// - T: a source table was truncated: everything rebuilt

/** The log triggers: [table, trigger, definition]. Statement triggers append what a whole statement changed at once. */
export const LOG_TRIGGERS: Array<[string, string, string]> = [
  ...(['insert', 'update', 'delete'] as const).flatMap((op) =>
    (['riders', 'assignments', 'patrol_checks', 'patrol_check_answers', 'product_exchanges'] as const)
      .filter((table) => !(table === 'riders' && op === 'update'))
      .map((table): [string, string, string] => [
        table,
        `${table}_${op}_kept_changes`,
        `AFTER ${op.toUpperCase()} ON ${table} REFERENCING ${op === 'insert' ? 'NEW TABLE AS new_rows' : op === 'delete' ? 'OLD TABLE AS old_rows' : 'OLD TABLE AS old_rows NEW TABLE AS new_rows'} FOR EACH STATEMENT EXECUTE FUNCTION ${table}_log_kept_changes()`,
      ]),
  ),
  // A rider's UPDATE: only a change of what the kept data shows (not its name, nor the counts kept_apply writes).
  [
    'riders',
    'riders_update_kept_changes',
    `AFTER UPDATE OF id, company_id, country_id ON riders FOR EACH ROW WHEN ((OLD.id, OLD.company_id, OLD.country_id) IS DISTINCT FROM (NEW.id, NEW.company_id, NEW.country_id)) EXECUTE FUNCTION riders_log_kept_changes()`,
  ],
  [
    'products',
    'products_kept_changes',
    `AFTER UPDATE OF name, exchange_after_days ON products FOR EACH ROW WHEN ((OLD.name, OLD.exchange_after_days) IS DISTINCT FROM (NEW.name, NEW.exchange_after_days)) EXECUTE FUNCTION catalog_log_kept_changes('p')`,
  ],
  [
    'product_variations',
    'product_variations_kept_changes',
    `AFTER UPDATE OF name ON product_variations FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION catalog_log_kept_changes('v')`,
  ],
  [
    'companies',
    'companies_kept_changes',
    `AFTER UPDATE OF name ON companies FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION catalog_log_kept_changes('o')`,
  ],
  [
    'countries',
    'countries_kept_changes',
    `AFTER UPDATE OF code ON countries FOR EACH ROW WHEN (OLD.code IS DISTINCT FROM NEW.code) EXECUTE FUNCTION catalog_log_kept_changes('n')`,
  ],
  [
    'questions',
    'questions_kept_changes',
    `AFTER UPDATE OF text, category ON questions FOR EACH ROW WHEN ((OLD.text, OLD.category) IS DISTINCT FROM (NEW.text, NEW.category)) EXECUTE FUNCTION catalog_log_kept_changes('Q')`,
  ],
  ...(['riders', 'assignments', 'patrol_checks', 'patrol_check_answers', 'product_exchanges'] as const).map(
    (table): [string, string, string] => [
      table,
      `${table}_truncate_kept_changes`,
      `AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes()`,
    ],
  ),
];

/** The log triggers of one table, for bulk loaders that write the kept data once at the end (db/seeds/demo.ts). */
export const KEPT_LOG_TRIGGERS = LOG_TRIGGERS.filter(([, name]) => !name.endsWith('_truncate_kept_changes')).map(
  ([table, name]) => [table, name] as const,
);

// Demo data for the rider equipment service: a deterministic, seeded, synthetic fleet.
//
// Every table is loaded with COPY ... FROM STDIN from generators (bulk-load.ts), so memory stays flat
// at any size. Tables that depend on each other (assignments -> returns/exchanges/check items) are
// written in separate passes over the riders; each pass rebuilds a rider's plan from a PRNG seeded by
// (seed, rider id), so the passes agree without keeping anything from the previous one.
//
// The records are made by one module per kind, next to this one:
//   demo-world.ts          the reference tables, built once: demo-countries.ts, demo-people.ts
//                          (companies, app users, patrollers), demo-products.ts, demo-questionnaire.ts
//   demo-riders.ts         riders, and the passes over them
//   demo-assignments.ts    assignments, returns, exchanges
//   demo-patrol-checks.ts  patrol checks, their items and answers
//   demo-random.ts, demo-time.ts, names.ts: seeded randomness, the time anchor, word lists
// They stay in this folder, beside this file: the bench keys a loaded dataset on every compiled file
// here (bench/dataset.ts), so that any change to the generator makes it load afresh.
// test/seed-digest.test.ts holds digests of what the generator writes for a few option sets.

import type { ClientBase } from 'pg';
import { performance } from 'node:perf_hooks';
import { copyRows, deferConstraints, restoreConstraints, seconds, type LoadContext, type Progress } from './bulk-load';
import { assignmentRows, exchangeRows, returnRows } from './demo-assignments';
import { countryRows } from './demo-countries';
import { namedRows } from './demo-people';
import { checkAnswerRows, checkItemRows, checkRows } from './demo-patrol-checks';
import { productRows, variationRows } from './demo-products';
import { questionAnswerRows, questionRows } from './demo-questionnaire';
import { riderRows, walkRiders } from './demo-riders';
import { DEMO_ANCHOR, SECOND } from './demo-time';
import { buildWorld } from './demo-world';
import { KEPT_LOG_TRIGGERS } from '../migrations/20261127_018_kept_change_log';

export { DEMO_ANCHOR } from './demo-time';

export interface DemoOptions {
  riders: number;
  seed: number;
  /**
   * The moment the history ends (ms since the epoch); the newest records are from the hour before it.
   * Fixed by default (DEMO_ANCHOR), so tests and the bench load the same rows on every run; `npm start`
   * passes its own start, so the demo it loads ends today.
   */
  anchor?: number;
  log?: (msg: string) => void;
}

export const DEFAULT_DEMO: DemoOptions = { riders: 300, seed: 42 };

const TABLES = [
  'countries',
  'companies',
  'app_users',
  'patrollers',
  'product_categories',
  'products',
  'product_variations',
  'questions',
  'question_answers',
  'riders',
  'assignments',
  'product_returns',
  'product_exchanges',
  'patrol_checks',
  'patrol_check_items',
  'patrol_check_answers',
] as const;

// companies is referenced from outside the data (API tokens and supervisors limited to one 3PL), so
// it cannot be truncated; its six rows are loaded without FREEZE.
const TRUNCATED = TABLES.filter((table) => table !== 'companies');
/** Derived from the seeded tables by triggers, so truncated with them and rebuilt once at the end. */
const DERIVED = [
  'patrol_check_questioners',
  'rider_list_entries',
  'rider_list_blocks',
  ...[
    ...['check_gaps', 'assignment_days', 'check_quarters', 'exchange_quarters', 'exchange_days', 'held_items', 'company_riders'],
    ...['riders', 'rider_held', 'moved_riders', 'changes', 'rule_riders', 'rule_days', 'rider_name_grams', 'rider_name_gram_counts'],
  ].map((name) => `kept_${name}`),
] as const;
/** The row triggers writing the rider, 3PL and items kept on list rows (migration 011): the rows carry them. */
const LIST_KEY_TRIGGERS = ['patrol_checks', 'assignments', 'product_returns', 'product_exchanges'].map((table) => [
  table,
  `${table}_list_keys`,
]);
/** The load writes every kept table once at the end (kept_rebuild), so nothing goes into the change log meanwhile. */
const QUIET_TRIGGERS = [...KEPT_LOG_TRIGGERS, ...LIST_KEY_TRIGGERS];

/** The seed writes fixed ids from 1 (riders from 100001), so it needs every table empty. */
async function assertEmpty(client: ClientBase): Promise<void> {
  const riders = await client.query('SELECT 1 FROM riders LIMIT 1');
  if ((riders.rowCount ?? 0) > 0)
    throw new Error('seedDemo: table riders already has rows; the demo seed needs a freshly migrated, empty database');
  const { rows } = await client.query<{ table: string }>(
    TABLES.map((t) => `SELECT '${t}' AS table WHERE EXISTS (SELECT 1 FROM ${t})`).join(' UNION ALL '),
  );
  if (rows.length > 0)
    throw new Error(
      `seedDemo: tables ${rows.map((r) => r.table).join(', ')} already have rows; the demo seed needs a freshly migrated, empty database`,
    );
}

/**
 * Fills a freshly migrated, empty database with a deterministic demo fleet: the same options give
 * byte-identical data. Runs in one transaction of its own (so do not call it inside another one),
 * ANALYZEs the tables, and returns the number of rows written per table.
 */
export async function seedDemo(client: ClientBase, options: DemoOptions): Promise<Record<string, number>> {
  const { riders, seed } = options;
  if (!Number.isSafeInteger(riders) || riders < 1) throw new Error(`seedDemo: riders must be a positive integer, got ${riders}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`seedDemo: seed must be an integer, got ${seed}`);
  await assertEmpty(client);

  const ctx: LoadContext = { client, log: options.log ?? (() => undefined), verbose: riders >= 10000 };
  const started = performance.now();
  const anchor = options.anchor ?? DEMO_ANCHOR;
  if (!Number.isSafeInteger(anchor) || anchor % SECOND !== 0)
    throw new Error(`seedDemo: anchor must be a whole second in ms, got ${anchor}`);
  const world = buildWorld(seed >>> 0, anchor);
  const counts: Record<string, number> = {};
  // The tables truncated below are written frozen.
  const copy = (table: (typeof TABLES)[number], columns: readonly string[], rows: Iterable<string>, progress?: Progress) =>
    copyRows(ctx, table, columns, rows, { freeze: (TRUNCATED as readonly string[]).includes(table), progress });
  /** A new pass over the riders, and how far it has got. */
  const pass = (needs: { assignments?: boolean; checks?: boolean }) => {
    const progress: Progress = { done: 0, total: riders };
    return { progress, plans: walkRiders(world, riders, needs, progress) };
  };

  await client.query('BEGIN');
  try {
    // The tables are empty (checked above); truncating them here is what allows COPY FREEZE.
    await client.query(`TRUNCATE ${[...TRUNCATED, ...DERIVED].join(', ')}`);
    const deferred = await deferConstraints(client, TABLES);

    counts.countries = await copy('countries', ['id', 'code', 'name'], countryRows(world.countries));
    counts.companies = await copy('companies', ['id', 'name'], namedRows(world.companies));
    counts.app_users = await copy('app_users', ['id', 'name'], namedRows(world.appUsers));
    counts.patrollers = await copy('patrollers', ['id', 'name'], namedRows(world.patrollers));
    counts.product_categories = await copy('product_categories', ['id', 'name'], namedRows(world.categories));
    counts.products = await copy(
      'products',
      ['id', 'name', 'category_id', 'image_url', 'exchange_after_days'],
      productRows(world.products),
    );
    counts.product_variations = await copy('product_variations', ['id', 'product_id', 'name'], variationRows(world.products));
    counts.questions = await copy('questions', ['id', 'country_id', 'text', 'question_type', 'category'], questionRows(world.questions));
    counts.question_answers = await copy(
      'question_answers',
      ['question_id', 'position', 'name', 'name_ar', 'score', 'jump', 'skip'],
      questionAnswerRows(world.questions),
    );

    let p = pass({ assignments: true });
    // Kept data (item counts, list blocks and entries, questioner arrays) is built once at the end.
    for (const [table, trigger] of QUIET_TRIGGERS) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
    counts.riders = await copy(
      'riders',
      ['id', 'name', 'company_id', 'country_id', 'active_items', 'returned_items'],
      riderRows(p.plans),
      p.progress,
    );
    p = pass({ assignments: true });
    counts.assignments = await copy(
      'assignments',
      [
        'id',
        'rider_id',
        'product_id',
        'variation_id',
        'assigned_at',
        'assigned_by',
        'assign_method',
        'assign_type',
        'deleted_at',
        'company_id',
      ],
      assignmentRows(p.plans),
      p.progress,
    );
    p = pass({ assignments: true });
    counts.product_returns = await copy(
      'product_returns',
      ['id', 'assignment_id', 'returned_at', 'returned_by', 'condition', 'rider_id', 'company_id', 'product_id', 'variation_id'],
      returnRows(p.plans),
      p.progress,
    );
    p = pass({ assignments: true });
    counts.product_exchanges = await copy(
      'product_exchanges',
      [
        ...['id', 'old_assignment_id', 'new_assignment_id', 'exchanged_at', 'exchange_type', 'replacement_type', 'processed_by'],
        ...['rider_id', 'company_id', 'old_product_id', 'old_variation_id', 'new_product_id', 'new_variation_id'],
      ],
      exchangeRows(p.plans),
      p.progress,
    );
    p = pass({ checks: true });
    counts.patrol_checks = await copy(
      'patrol_checks',
      [
        'id',
        'rider_id',
        'patroller_id',
        'checked_at',
        'id_valid',
        'plate_valid',
        'sticker_valid',
        'fake_id_note',
        'fake_id_images',
        'company_id',
      ],
      checkRows(p.plans),
      p.progress,
    );
    p = pass({ assignments: true, checks: true });
    counts.patrol_check_items = await copy(
      'patrol_check_items',
      ['check_id', 'position', 'assignment_id', 'status', 'image_url'],
      checkItemRows(world, p.plans),
      p.progress,
    );
    p = pass({ checks: true });
    counts.patrol_check_answers = await copy(
      'patrol_check_answers',
      ['check_id', 'position', 'question_id', 'answer', 'image_url', 'score'],
      checkAnswerRows(world, p.plans),
      p.progress,
    );

    for (const [table, trigger] of QUIET_TRIGGERS) await client.query(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
    await restoreConstraints(ctx, deferred, TABLES);
    // What the TRUNCATE above logged is written by the rebuilds below.
    await client.query('DELETE FROM kept_changes');
    let rebuilt = performance.now();
    await client.query('SELECT patrol_check_questioners_rebuild()');
    await client.query('ANALYZE patrol_check_questioners');
    ctx.log(`questioner arrays: rebuilt in ${seconds(rebuilt)}`);
    rebuilt = performance.now();
    await client.query('SELECT rider_list_blocks_rebuild()');
    await client.query('SELECT rider_list_entries_rebuild()');
    await client.query('ANALYZE rider_list_blocks, rider_list_entries');
    ctx.log(`rider list blocks and entries: rebuilt in ${seconds(rebuilt)}`);
    rebuilt = performance.now();
    await client.query('SELECT kept_attention_rebuild()');
    await client.query('SELECT kept_riders_rebuild()');
    await client.query('SELECT kept_rules_rebuild()');
    await client.query('SELECT kept_rider_name_grams_rebuild()');
    await client.query(`ANALYZE ${DERIVED.filter((table) => table.startsWith('kept_')).join(', ')}`);
    ctx.log(`kept attention and overview data: rebuilt in ${seconds(rebuilt)}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  ctx.log(`demo seed (riders=${riders}, seed=${seed}) done in ${seconds(started)}`);
  return counts;
}

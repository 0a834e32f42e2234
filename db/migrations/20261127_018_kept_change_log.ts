import type { Knex } from 'knex';

// The systems that write the data no longer keep the service's data in their own statements. Until
// now the triggers of migrations 002, 004, 006, 008 and 011 rewrote the kept rows inside each writer's
// statement: an assignment for a rider at the end of the fleet cost seconds (the rider list's entry
// view was read for every rider up to it), a check rewrote its quarter of an hour over the whole
// fleet, a rider moved to another 3PL rewrote each of its rows and their quarters, and every write
// of a 3PL updated that 3PL's one row of counts, so writers waited on each other and deadlocked.
//
// Now a writer's statement only appends what it changed to kept_changes (one small row per rider,
// check, quarter of an hour or catalog row it touched; no index, no lock shared with another writer),
// and kept_apply() folds those rows into the kept data in the background: the service calls it a few
// times a second (src/db/kept-applier.ts), one caller at a time (an advisory lock), in transactions of
// a bounded batch. It reads what is committed now, so the order in which changes arrive does not
// matter: each row names what to write afresh, never a difference to add. The counts per 3PL that
// cannot be recounted cheaply (held items, riders, list blocks) are kept as the difference between
// each rider's part as last applied (kept_riders, kept_rider_held) and its part now.
//
// The applier never waits long for a writer: its lock_timeout is shorter than deadlock_timeout, so a
// batch that meets a writer's row lock gives up, rolls back (its changes stay in the log) and is tried
// again, and no writer is ever ended to break a deadlock with it. Writers wait for the applier only
// on a row both write (a rider whose item counts a batch updates; the rows of a moved rider whose 3PL
// a batch corrects), for one batch.
//
// What stays in the writer's statement: the BEFORE triggers of migration 011 that copy a new row's
// rider, 3PL and items onto the row itself (one primary-key lookup each). Migration 017's key locks
// (kept_lock and the refresh functions that take them) are no longer called: one session applies.

/** The triggers that kept the data inside the writers' statements, as pg_get_triggerdef gives them (for down). */
const SYNCHRONOUS_TRIGGERS: Array<[table: string, name: string, definition: string]> = [
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
const LOG_TRIGGERS: Array<[string, string, string]> = [
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

/** The name of the advisory lock that lets one session apply the log at a time. */
const APPLIER_LOCK = 'kept_apply';

// The statement triggers' bodies: skip what kept_apply() and kept_rebuild() write themselves (while
// they run, their SET clause says so; it is undone when they return).
const applying = `IF current_setting('kept.applying', true) = 'on' THEN RETURN NULL; END IF;`;

/** The rebuild of every kept table (its \`CREATE\` statement), with \`after\`: the rebuilds later migrations add. */
const keptRebuild = (create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', after = '') => `
    ${create} kept_rebuild() RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    BEGIN
      DELETE FROM kept_changes;
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();${after}
    END $$;`;

/**
 * The applier's function (its \`CREATE\` statement), with \`after\`: what later migrations add to each
 * batch once the riders' rows are written (migration 023: the rules' kept days of its riders).
 */
const keptApply = (create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', after = '') => `
    ${create} kept_apply(batch integer DEFAULT 1000) RETURNS integer LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '200ms' SET kept.applying = 'on'
      -- Each statement planned for the ids at hand: a plan made once for any array may read whole tables.
      SET plan_cache_mode = force_custom_plan AS $$
    DECLARE
      taken integer;
      truncated boolean;
      riders_ bigint[]; held bigint[]; checked bigint[]; moved_items bigint[]; answered bigint[]; entries bigint[];
      check_quarters timestamptz[]; exchange_quarters timestamptz[];
      products_ bigint[]; variations bigint[]; companies_ bigint[]; countries_ bigint[]; questions_ bigint[];
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('${APPLIER_LOCK}', 0)) THEN RETURN -1; END IF;
      WITH taken AS (
        DELETE FROM kept_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM kept_changes LIMIT batch)) RETURNING kind, id, at
      )
      SELECT count(*), bool_or(kind = 'T'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'r'), array_agg(DISTINCT id) FILTER (WHERE kind = 'h'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'g'), array_agg(DISTINCT id) FILTER (WHERE kind = 'k'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'c'), array_agg(DISTINCT id) FILTER (WHERE kind = 'e'),
             array_agg(DISTINCT at) FILTER (WHERE kind = 'q'), array_agg(DISTINCT at) FILTER (WHERE kind = 'x'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'p'), array_agg(DISTINCT id) FILTER (WHERE kind = 'v'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'o'), array_agg(DISTINCT id) FILTER (WHERE kind = 'n'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'Q')
        INTO taken, truncated, riders_, held, checked, moved_items, answered, entries, check_quarters, exchange_quarters,
             products_, variations, companies_, countries_, questions_
        FROM taken;
      IF taken = 0 THEN RETURN 0; END IF;
      IF truncated THEN
        PERFORM kept_rebuild();
        RETURN taken;
      END IF;

      -- A catalog row names every rider or check that shows it: those go back into the log, to be
      -- written in later batches (a product's holders may be most of the fleet).
      IF products_ IS NOT NULL OR variations IS NOT NULL OR companies_ IS NOT NULL OR countries_ IS NOT NULL OR questions_ IS NOT NULL THEN
      INSERT INTO kept_changes (kind, id)
        SELECT 'h', rider_id FROM assignments WHERE product_id = ANY (products_)
        UNION SELECT 'e', rider_id FROM assignments WHERE variation_id = ANY (variations)
        UNION SELECT 'e', id FROM riders WHERE company_id = ANY (companies_) OR country_id = ANY (countries_)
        UNION SELECT 'c', check_id FROM patrol_check_answers WHERE question_id = ANY (questions_);
      END IF;

      riders_ := coalesce(riders_, '{}');
      held := riders_ || coalesce(held, '{}');
      checked := riders_ || coalesce(checked, '{}');
      entries := held || coalesce(entries, '{}');
      moved_items := coalesce(moved_items, '{}');
      -- A rider's row changed (moved to another 3PL, new, gone): its checks and exchanges count for the 3PL
      -- it has now. Every such rider's quarters are written afresh, whatever kept_riders last said: another
      -- move may have come between (riders move seldom; their checks' quarters are few).
      check_quarters := coalesce(check_quarters, '{}')
        || ARRAY(SELECT DISTINCT kept_quarter(checked_at) FROM patrol_checks WHERE rider_id = ANY (riders_));
      exchange_quarters := coalesce(exchange_quarters, '{}')
        || ARRAY(SELECT kept_quarter(e.exchanged_at) FROM assignments a JOIN product_exchanges e ON e.old_assignment_id = a.id
                  WHERE a.rider_id = ANY (riders_)
                 UNION SELECT kept_quarter(exchanged_at) FROM product_exchanges WHERE old_assignment_id = ANY (moved_items));

      PERFORM rider_list_entries_refresh_unlocked(entries);
      PERFORM kept_assignment_days_refresh_riders(held);
      PERFORM kept_check_gaps_refresh_unlocked(checked);
      PERFORM patrol_check_questioners_refresh_unlocked(coalesce(answered, '{}'));
      PERFORM kept_apply_quarters(check_quarters, exchange_quarters);
      -- Last, the rows writers also lock (their riders and their rows' list keys): held from here to the
      -- commit only, so a writer never waits on this batch for long.
      INSERT INTO kept_moved_riders SELECT DISTINCT unnest(riders_) ON CONFLICT DO NOTHING;
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)),
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)),
        moved_items);
      PERFORM kept_apply_riders(held);${after}
      RETURN taken;
    END $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${SYNCHRONOUS_TRIGGERS.map(([table, name]) => `DROP TRIGGER ${name} ON ${table};`).join('\n    ')}

    CREATE TABLE kept_changes (
      kind text        NOT NULL,
      id   bigint,
      at   timestamptz,
      logged_at timestamptz NOT NULL DEFAULT now()
    );
    -- Appended by writers, taken whole by kept_apply(): vacuumed after every thousand or so.
    ALTER TABLE kept_changes SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0,
      autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_analyze_threshold = 1000,
      autovacuum_analyze_scale_factor = 0);
    COMMENT ON TABLE kept_changes IS 'What writers changed that the kept data shows, until kept_apply() has written it (migration 018).';

    -- How far behind the kept data is: changes waiting (counted up to 100,000), and when the oldest of
    -- them was written (NULL when nothing waits). Any session may read it, on a replica too.
    CREATE FUNCTION kept_freshness(OUT pending bigint, OUT oldest timestamptz) LANGUAGE sql STABLE
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      SELECT count(*), min(logged_at) FROM (SELECT logged_at FROM kept_changes LIMIT 100000) l;
    $$;

    -- Each rider's part in the counts per 3PL, as kept_apply() last wrote them: the counts change by
    -- the difference between this and the rider's part now.
    CREATE TABLE kept_riders (
      rider_id       bigint  PRIMARY KEY,
      company_id     bigint  NOT NULL,
      active_items   integer NOT NULL,
      returned_items integer NOT NULL
    );
    COMMENT ON TABLE kept_riders IS 'Each rider''s 3PL and item counts as last applied to the counts per 3PL; kept by kept_apply().';
    CREATE VIEW kept_rider_docs AS
      SELECT r.id AS rider_id, r.company_id,
             count(a.id) FILTER (WHERE a.deleted_at IS NULL)::int AS active_items,
             count(a.id) FILTER (WHERE a.deleted_at IS NOT NULL)::int AS returned_items
        FROM riders r LEFT JOIN assignments a ON a.rider_id = r.id
       GROUP BY r.id;

    -- Riders whose row changed (another 3PL) since the log began: only their rows' list keys can be
    -- stale (a row written while its rider moved read the old 3PL), so only theirs are checked again.
    CREATE TABLE kept_moved_riders (
      rider_id bigint PRIMARY KEY
    );
    COMMENT ON TABLE kept_moved_riders IS 'Riders whose 3PL or row changed since migration 018: kept_apply() checks their rows'' list keys; kept by kept_apply().';

    CREATE TABLE kept_rider_held (
      rider_id   bigint  NOT NULL,
      product_id bigint  NOT NULL,
      items      integer NOT NULL CHECK (items > 0),
      PRIMARY KEY (rider_id, product_id)
    );
    COMMENT ON TABLE kept_rider_held IS 'Items each rider holds per product, as last applied to kept_held_items; kept by kept_apply().';
    CREATE VIEW kept_rider_held_docs AS
      SELECT rider_id, product_id, count(*)::int AS items FROM assignments WHERE deleted_at IS NULL GROUP BY 1, 2;

    -- The rider list's entries, one rider's read through its own assignments (the view of migration 006
    -- grouped every assignment before it could keep the riders asked for: seconds for one rider).
    CREATE OR REPLACE VIEW rider_list_entry_docs AS
      SELECT r.id AS rider_id,
             concat(h.head, x.all_doc::text, '}') AS all_entry,
             CASE WHEN x.active_doc IS NOT NULL THEN concat(h.head, x.active_doc::text, '}') END AS active_entry,
             CASE WHEN x.returned_doc IS NOT NULL THEN concat(h.head, x.returned_doc::text, '}') END AS returned_entry
        FROM riders r
        JOIN companies c ON c.id = r.company_id
        JOIN countries co ON co.id = r.country_id
        CROSS JOIN LATERAL (
          SELECT json_agg(d.doc ORDER BY a.assigned_at, a.id) AS all_doc,
                 json_agg(d.doc ORDER BY a.assigned_at, a.id) FILTER (WHERE a.deleted_at IS NULL) AS active_doc,
                 json_agg(d.doc ORDER BY a.assigned_at, a.id) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned_doc
            FROM assignments a
            JOIN products p ON p.id = a.product_id
            JOIN product_variations v ON v.id = a.variation_id
            CROSS JOIN rider_list_zone z
            CROSS JOIN LATERAL (SELECT json_build_object(
              'equipment_id', a.product_id,
              'variation_id', a.variation_id,
              'equipment_name', p.name,
              'equipment_variation_name', v.name,
              'assign_date', to_char(a.assigned_at AT TIME ZONE z.zone, 'YYYY-MM-DD HH24:MI:SS'),
              'assign_type', a.assign_type,
              'return_date', to_char(a.deleted_at AT TIME ZONE z.zone, 'YYYY-MM-DD HH24:MI:SS'),
              'active', a.deleted_at IS NULL) AS doc) d
           WHERE a.rider_id = r.id) x
        CROSS JOIN LATERAL (SELECT concat('{"rider_id" : ', coalesce(to_json(r.id::text)::text, 'null'),
                                          ', "3pl_name" : ', coalesce(to_json(c.name)::text, 'null'),
                                          ', "country_code" : ', coalesce(to_json(co.code)::text, 'null'),
                                          ', "products" : ') AS head) h
       WHERE x.all_doc IS NOT NULL;

    -- The one kept thing left in the writer's statement: a new check's or assignment's 3PL, read into
    -- the row. SELECT INTO is a plain query; the assignment of a scalar subquery that migration 011 used
    -- ran the executor for an expression each row: 10,000 rows in one statement cost twice as long.
    CREATE OR REPLACE FUNCTION rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      SELECT r.company_id INTO NEW.company_id FROM riders r WHERE r.id = NEW.rider_id;
      RETURN NEW;
    END $$;

    -- The log triggers ------------------------------------------------------------------------------
    CREATE FUNCTION riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_LEVEL = 'ROW' THEN
        INSERT INTO kept_changes (kind, id) VALUES ('r', OLD.id);
        IF NEW.id <> OLD.id THEN INSERT INTO kept_changes (kind, id) VALUES ('r', NEW.id); END IF;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM new_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id)
          SELECT 'h', rider_id FROM new_rows UNION SELECT 'h', rider_id FROM old_rows
          UNION
          SELECT 'k', n.id FROM new_rows n LEFT JOIN old_rows o ON o.id = n.id
           WHERE (o.rider_id, o.product_id, o.variation_id) IS DISTINCT FROM (n.rider_id, n.product_id, n.variation_id);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz FROM new_rows UNION ALL SELECT DISTINCT 'q', NULL::bigint, kept_quarter(checked_at) FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz FROM old_rows UNION ALL SELECT DISTINCT 'q', NULL::bigint, kept_quarter(checked_at) FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id, at)
          SELECT 'g', rider_id, NULL::timestamptz FROM new_rows UNION SELECT 'g', rider_id, NULL FROM old_rows
          UNION SELECT 'q', NULL, kept_quarter(checked_at) FROM new_rows UNION SELECT 'q', NULL, kept_quarter(checked_at) FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, at) SELECT DISTINCT 'x', kept_quarter(exchanged_at) FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, at) SELECT DISTINCT 'x', kept_quarter(exchanged_at) FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, at)
          SELECT 'x', kept_quarter(exchanged_at) FROM new_rows UNION SELECT 'x', kept_quarter(exchanged_at) FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

    CREATE FUNCTION truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO kept_changes (kind) VALUES ('T');
      RETURN NULL;
    END $$;

    ${LOG_TRIGGERS.map(([, name, definition]) => `CREATE TRIGGER ${name} ${definition};`).join('\n    ')}

    -- A rider's gaps between checks written as a difference: the rows that changed go, the new ones come,
    -- and the others stay (a check added after the rider's last changes one row and adds one, instead of
    -- rewriting the rider's every gap and its seven index entries: a quarter of the time for an import).
    CREATE OR REPLACE FUNCTION kept_check_gaps_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      WITH fresh AS MATERIALIZED (SELECT * FROM kept_check_gap_docs WHERE rider_id = ANY (ids)),
      gone AS (
        DELETE FROM kept_check_gaps k
         WHERE k.rider_id = ANY (ids)
           AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.rider_id = k.rider_id
                             AND (f.check_id, f.from_at, f.until_at, f.streak, f.streak_start)
                                 IS NOT DISTINCT FROM (k.check_id, k.from_at, k.until_at, k.streak, k.streak_start)))
      INSERT INTO kept_check_gaps
        SELECT * FROM fresh f
         WHERE NOT EXISTS (SELECT 1 FROM kept_check_gaps k WHERE k.rider_id = f.rider_id
                             AND (f.check_id, f.from_at, f.until_at, f.streak, f.streak_start)
                                 IS NOT DISTINCT FROM (k.check_id, k.from_at, k.until_at, k.streak, k.streak_start));
    $$;

    -- The exchange days of a rider's items, the same way (an item added or returned changes its own row):
    -- rows of items the riders no longer have go, the others are written where they differ.
    CREATE FUNCTION kept_assignment_days_refresh_riders(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      WITH fresh AS MATERIALIZED (SELECT * FROM kept_assignment_day_docs WHERE rider_id = ANY (ids)),
      gone AS (
        DELETE FROM kept_assignment_days k
         WHERE k.rider_id = ANY (ids)
           AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.assignment_id = k.assignment_id))
      INSERT INTO kept_assignment_days AS k
        SELECT * FROM fresh
        ON CONFLICT (assignment_id) DO UPDATE SET rider_id = EXCLUDED.rider_id, eligible_at = EXCLUDED.eligible_at, deleted_at = EXCLUDED.deleted_at
         WHERE (k.rider_id, k.eligible_at, k.deleted_at) IS DISTINCT FROM (EXCLUDED.rider_id, EXCLUDED.eligible_at, EXCLUDED.deleted_at);
    $$;

    -- Rebuilding everything --------------------------------------------------------------------------
    CREATE FUNCTION kept_riders_rebuild() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      LOCK TABLE kept_riders, kept_rider_held IN EXCLUSIVE MODE;
      DELETE FROM kept_riders;
      INSERT INTO kept_riders SELECT rider_id, company_id, active_items, returned_items FROM kept_rider_docs;
      DELETE FROM kept_rider_held;
      INSERT INTO kept_rider_held SELECT * FROM kept_rider_held_docs;
    END $$;

    -- Every kept table from its definition, and the log emptied: first, so that a change committed
    -- while the rebuild reads stays in it for kept_apply(). Writers go on; bulk loaders call this.
    ${keptRebuild('CREATE FUNCTION')}

    -- Applying the log -------------------------------------------------------------------------------
    -- Riders' items and 3PL: their counts on riders, the list blocks, the counts per 3PL and per 3PL and
    -- product, by the difference between each rider's part as last applied and its part now.
    CREATE FUNCTION kept_apply_riders(ids bigint[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      -- One statement, so one snapshot: the 3PL a rider's items are added under is the one kept_riders
      -- then says (two statements could read a move committed between them, and count it twice).
      WITH now_riders AS MATERIALIZED (
        SELECT r.id AS rider_id, r.company_id, r.active_items AS was_active, r.returned_items AS was_returned,
               c.active_items, c.returned_items
          FROM riders r
          CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE a.deleted_at IS NULL)::int AS active_items,
                   count(*) FILTER (WHERE a.deleted_at IS NOT NULL)::int AS returned_items
              FROM assignments a WHERE a.rider_id = r.id) c
         WHERE r.id = ANY (ids)
      ), was_riders AS MATERIALIZED (
        SELECT rider_id, company_id, active_items, returned_items FROM kept_riders WHERE rider_id = ANY (ids)
      ), now_held AS MATERIALIZED (
        SELECT a.rider_id, n.company_id, a.product_id, count(*)::int AS items
          FROM assignments a JOIN now_riders n ON n.rider_id = a.rider_id
         WHERE a.rider_id = ANY (ids) AND a.deleted_at IS NULL
         GROUP BY 1, 2, 3
      ), was_held AS MATERIALIZED (
        SELECT h.rider_id, w.company_id, h.product_id, h.items
          FROM kept_rider_held h JOIN was_riders w ON w.rider_id = h.rider_id
         WHERE h.rider_id = ANY (ids)
      ), per_product AS MATERIALIZED (
        SELECT company_id, product_id, sum(items)::int AS n
          FROM (SELECT company_id, product_id, items FROM now_held UNION ALL SELECT company_id, product_id, -items FROM was_held) x
         GROUP BY 1, 2 HAVING sum(items) <> 0
      ), parts AS MATERIALIZED (
        SELECT company_id, rider_id, 1 AS sign, active_items, returned_items FROM now_riders
        UNION ALL
        SELECT company_id, rider_id, -1, active_items, returned_items FROM was_riders
      ), per_block AS MATERIALIZED (
        SELECT company_id, rider_id >> 10 AS block,
               sum(sign * (active_items > 0 OR returned_items > 0)::int)::int AS with_items,
               sum(sign * (active_items > 0)::int)::int AS with_active,
               sum(sign * (returned_items > 0)::int)::int AS with_returned
          FROM parts GROUP BY 1, 2
      ), per_company AS MATERIALIZED (
        SELECT company_id, sum(sign)::int AS riders, sum(sign * (active_items > 0)::int)::int AS riders_holding,
               sum(sign * active_items)::int AS items_held
          FROM parts GROUP BY 1
      ), held_changed AS (
        UPDATE kept_held_items k SET items = k.items + d.n FROM per_product d WHERE k.company_id = d.company_id AND k.product_id = d.product_id
      ), held_added AS (
        INSERT INTO kept_held_items (company_id, product_id, items)
          SELECT company_id, product_id, n FROM per_product d
           WHERE NOT EXISTS (SELECT 1 FROM kept_held_items k WHERE k.company_id = d.company_id AND k.product_id = d.product_id)
      ), rider_held_gone AS (
        DELETE FROM kept_rider_held h
         WHERE h.rider_id = ANY (ids)
           AND NOT EXISTS (SELECT 1 FROM now_held n WHERE n.rider_id = h.rider_id AND n.product_id = h.product_id)
      ), rider_held_put AS (
        INSERT INTO kept_rider_held AS h (rider_id, product_id, items)
          SELECT rider_id, product_id, items FROM now_held
          ON CONFLICT (rider_id, product_id) DO UPDATE SET items = EXCLUDED.items WHERE h.items <> EXCLUDED.items
      ), blocks_changed AS (
        UPDATE rider_list_blocks b
           SET with_items = b.with_items + d.with_items, with_active = b.with_active + d.with_active,
               with_returned = b.with_returned + d.with_returned
          FROM per_block d
         WHERE b.company_id = d.company_id AND b.block = d.block AND (d.with_items, d.with_active, d.with_returned) <> (0, 0, 0)
      ), blocks_added AS (
        INSERT INTO rider_list_blocks (company_id, block, with_items, with_active, with_returned)
          SELECT * FROM per_block d
           WHERE d.with_items > 0 AND NOT EXISTS (SELECT 1 FROM rider_list_blocks b WHERE b.company_id = d.company_id AND b.block = d.block)
      ), companies_changed AS (
        UPDATE kept_company_riders k
           SET riders = k.riders + d.riders, riders_holding = k.riders_holding + d.riders_holding, items_held = k.items_held + d.items_held
          FROM per_company d
         WHERE k.company_id = d.company_id AND (d.riders, d.riders_holding, d.items_held) <> (0, 0, 0)
      ), companies_added AS (
        INSERT INTO kept_company_riders (company_id, riders, riders_holding, items_held)
          SELECT * FROM per_company d
           WHERE d.riders > 0 AND NOT EXISTS (SELECT 1 FROM kept_company_riders k WHERE k.company_id = d.company_id)
      ), counted AS (
        UPDATE riders r SET active_items = n.active_items, returned_items = n.returned_items
          FROM now_riders n
         WHERE r.id = n.rider_id AND (n.was_active, n.was_returned) <> (n.active_items, n.returned_items)
      ), riders_gone AS (
        DELETE FROM kept_riders k WHERE k.rider_id = ANY (ids) AND NOT EXISTS (SELECT 1 FROM now_riders n WHERE n.rider_id = k.rider_id)
      )
      INSERT INTO kept_riders AS k (rider_id, company_id, active_items, returned_items)
        SELECT rider_id, company_id, active_items, returned_items FROM now_riders
        ON CONFLICT (rider_id) DO UPDATE SET company_id = EXCLUDED.company_id, active_items = EXCLUDED.active_items,
          returned_items = EXCLUDED.returned_items
         WHERE (k.company_id, k.active_items, k.returned_items) <> (EXCLUDED.company_id, EXCLUDED.active_items, EXCLUDED.returned_items);
      DELETE FROM kept_held_items WHERE items = 0;
      DELETE FROM rider_list_blocks WHERE with_items = 0;
      DELETE FROM kept_company_riders WHERE riders = 0;
    END $$;

    -- The list keys (migration 011) of these riders' rows, and of the returns and exchanges of these
    -- assignments, where they differ from what they copy: rows written while their rider moved.
    CREATE FUNCTION kept_apply_list_keys(riders_ bigint[], checked bigint[], assignments_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE patrol_checks t SET company_id = r.company_id FROM riders r
       WHERE r.id = ANY (checked) AND t.rider_id = r.id AND t.company_id IS DISTINCT FROM r.company_id;
      UPDATE assignments t SET company_id = r.company_id FROM riders r
       WHERE r.id = ANY (riders_) AND t.rider_id = r.id AND t.company_id IS DISTINCT FROM r.company_id;
      -- Returns and exchanges as their views define them, read from each rider's items by index (an item
      -- given to another rider is in assignments_, its row logged by the UPDATE that moved it).
      UPDATE product_returns t SET rider_id = a.rider_id, company_id = r.company_id, product_id = a.product_id, variation_id = a.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id
       WHERE a.rider_id = ANY (riders_) AND t.assignment_id = a.id
         AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (a.rider_id, r.company_id, a.product_id, a.variation_id);
      UPDATE product_exchanges t SET rider_id = oa.rider_id, company_id = r.company_id, old_product_id = oa.product_id,
             old_variation_id = oa.variation_id, new_product_id = na.product_id, new_variation_id = na.variation_id
        FROM assignments oa JOIN riders r ON r.id = oa.rider_id, assignments na
       WHERE oa.rider_id = ANY (riders_) AND t.old_assignment_id = oa.id AND na.id = t.new_assignment_id
         AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
             IS DISTINCT FROM (oa.rider_id, r.company_id, oa.product_id, oa.variation_id, na.product_id, na.variation_id);
      IF cardinality(assignments_) > 0 THEN
        UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
          FROM product_return_list_key_docs d
         WHERE t.assignment_id = ANY (assignments_) AND d.id = t.id
           AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
        UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
               old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
               new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
          FROM product_exchange_list_key_docs d
         WHERE (t.old_assignment_id = ANY (assignments_) OR t.new_assignment_id = ANY (assignments_)) AND d.id = t.id
           AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
               IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id);
      END IF;
    END $$;

    -- The counts of these quarters of an hour (and the exchanges' UTC days), written in one statement per
    -- table rather than two per quarter: a moved rider brings the quarters of all its checks.
    CREATE FUNCTION kept_apply_quarters(check_quarters timestamptz[], exchange_quarters timestamptz[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      days date[] := ARRAY(SELECT DISTINCT kept_utc_day(q) FROM unnest(exchange_quarters) q);
    BEGIN
      check_quarters := ARRAY(SELECT DISTINCT q FROM unnest(check_quarters) q WHERE q IS NOT NULL);
      exchange_quarters := ARRAY(SELECT DISTINCT q FROM unnest(exchange_quarters) q WHERE q IS NOT NULL);
      IF cardinality(check_quarters) > 0 THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_quarters);
        INSERT INTO kept_check_quarters
          SELECT b.q, r.company_id, count(*)::int, count(*) FILTER (WHERE pc.id_valid AND pc.plate_valid AND pc.sticker_valid)::int
            FROM unnest(check_quarters) b(q)
            JOIN patrol_checks pc ON pc.checked_at >= b.q AND pc.checked_at < b.q + interval '15 minutes'
            JOIN riders r ON r.id = pc.rider_id
           GROUP BY 1, 2;
      END IF;
      IF cardinality(exchange_quarters) > 0 THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_quarters);
        INSERT INTO kept_exchange_quarters
          SELECT b.q, r.company_id, e.replacement_type, count(*)::int
            FROM unnest(exchange_quarters) b(q)
            JOIN product_exchanges e ON e.exchanged_at >= b.q AND e.exchanged_at < b.q + interval '15 minutes'
            JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
           GROUP BY 1, 2, 3;
        DELETE FROM kept_exchange_days WHERE day = ANY (days);
        INSERT INTO kept_exchange_days
          SELECT d.day, r.company_id, e.replacement_type, count(*)::int
            FROM unnest(days) d(day)
            JOIN product_exchanges e ON e.exchanged_at >= (d.day::timestamp AT TIME ZONE 'UTC')
                                    AND e.exchanged_at < ((d.day + 1)::timestamp AT TIME ZONE 'UTC')
            JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
           GROUP BY 1, 2, 3;
      END IF;
    END $$;

    -- Takes up to \`batch\` rows of the log and writes what they name afresh, in this transaction. Returns
    -- how many rows it took (0: the log is empty), or -1 when another session is applying (one at a time).
    -- A lock held by a writer for longer than lock_timeout ends the batch with an error (55P03): it is
    -- rolled back, its rows stay in the log, and the next call tries again.
${keptApply('CREATE FUNCTION')}
    -- Everything in the log, now, in this transaction: after a bulk load, and in tests. Waits for an
    -- applier at work to finish its batch.
    CREATE FUNCTION kept_apply_all() RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      total bigint := 0;
      taken integer;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('${APPLIER_LOCK}', 0));
      LOOP
        taken := kept_apply(10000);
        EXIT WHEN taken <= 0;
        total := total + taken;
      END LOOP;
      RETURN total;
    END $$;

    SELECT kept_riders_rebuild();
    ANALYZE kept_riders, kept_rider_held;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${LOG_TRIGGERS.map(([table, name]) => `DROP TRIGGER ${name} ON ${table};`).join('\n    ')}
    DROP FUNCTION kept_apply_all(), kept_apply(integer), kept_assignment_days_refresh_riders(bigint[]), kept_apply_list_keys(bigint[], bigint[], bigint[]), kept_apply_quarters(timestamptz[], timestamptz[]), kept_apply_riders(bigint[]),
      kept_rebuild(), kept_riders_rebuild(), truncate_log_kept_changes(), catalog_log_kept_changes(),
      product_exchanges_log_kept_changes(), patrol_check_answers_log_kept_changes(), patrol_checks_log_kept_changes(),
      assignments_log_kept_changes(), riders_log_kept_changes();
    DROP VIEW kept_rider_held_docs, kept_rider_docs;
    DROP FUNCTION kept_freshness();
    DROP TABLE kept_moved_riders, kept_rider_held, kept_riders, kept_changes;
    ${SYNCHRONOUS_TRIGGERS.map(([, name, definition]) => `CREATE TRIGGER ${name} ${definition};`).join('\n    ')}
    CREATE OR REPLACE FUNCTION rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      NEW.company_id := (SELECT r.company_id FROM riders r WHERE r.id = NEW.rider_id);
      RETURN NEW;
    END $$;
    CREATE OR REPLACE FUNCTION kept_check_gaps_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_check_gaps WHERE rider_id = ANY (ids);
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs WHERE rider_id = ANY (ids);
    $$;
  `);
  // The entries' view of migration 006 is the same definition read another way; it stays.
}

import type { Knex } from 'knex';

// A TRUNCATE of one of the data's tables rebuilt every kept table (kept_rebuild(): 6 min 37 s at
// 100,000 riders, in one batch), though most read nothing of that table: after TRUNCATE
// product_returns, only what reads returns changes. The TRUNCATE trigger now logs which table it
// emptied, and the applier writes afresh only the kept tables whose definition reads one of the
// emptied tables (through the views it reads: the catalogue says which), or a kept table written afresh
// before it (the rules read the check gaps and the items' exchange days), in the same batch as the rest
// of what the batch took, which it goes on to apply. The list keys are never among them: they are
// columns of the emptied rows themselves, or of rows whose sources a TRUNCATE cannot empty without
// emptying them too (their foreign keys make it a TRUNCATE … CASCADE). Groups whose tables are kept
// as differences of one another are written together: each rider's part in the counts per 3PL with
// those counts and the riders' item counts; the rules' riders with their days; the name bigrams with
// their counts. A kept table whose definition has no row left is emptied by a TRUNCATE of its own
// (nothing written per row), unless a reader holds it; then by a DELETE as before. A TRUNCATE logged
// before this migration names no table, and still rebuilds everything.

export const FUNCTIONS = `
    -- The tables a view reads, itself or through the views it reads (the dependencies of their rules).
    CREATE OR REPLACE FUNCTION kept_view_reads(view regclass) RETURNS text[] LANGUAGE sql STABLE
      SET search_path FROM CURRENT AS $$
      WITH RECURSIVE read(rel) AS (
        SELECT view::oid
        UNION
        SELECT d.refobjid FROM read JOIN pg_rewrite w ON w.ev_class = read.rel
          JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
                          AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> read.rel
      )
      SELECT coalesce(array_agg(c.relname::text ORDER BY c.relname), '{}')
        FROM read JOIN pg_class c ON c.oid = read.rel WHERE c.relkind IN ('r', 'p');
    $$;

    -- Empties kept table \`kept\` when its definition \`docs\` now has no row, and says so. TRUNCATE, which
    -- writes nothing per row (a DELETE of patrol_check_questioners' 1.6 GB at 100,000 riders wrote every
    -- page to the WAL for two minutes); but it waits for the readers of the table, so when one holds it
    -- past the applier's lock_timeout, a DELETE, which waits for none.
    CREATE OR REPLACE FUNCTION kept_emptied(kept regclass, docs regclass) RETURNS boolean LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      found boolean;
    BEGIN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s)', docs) INTO found;
      IF found THEN RETURN false; END IF;
      BEGIN
        EXECUTE format('TRUNCATE %s', kept);
      EXCEPTION WHEN lock_not_available THEN
        EXECUTE format('DELETE FROM %s', kept);
      END;
      RETURN true;
    END $$;

    -- Writes kept table \`kept\` afresh from its definition \`docs\` (same columns, in order).
    CREATE OR REPLACE FUNCTION kept_refill(kept regclass, docs regclass) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF kept_emptied(kept, docs) THEN RETURN; END IF;
      EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', kept);
      EXECUTE format('DELETE FROM %s', kept);
      EXECUTE format('INSERT INTO %s SELECT * FROM %s', kept, docs);
    END $$;

    -- Writes afresh the kept tables whose definitions read one of these tables, emptied by a TRUNCATE, or
    -- a kept table written afresh before them; true when that includes the counts per quarter (whose
    -- deltas waiting in the log it then holds).
    CREATE OR REPLACE FUNCTION kept_rebuild_truncated(emptied text[]) RETURNS boolean LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    DECLARE
      reads_ text[];
    BEGIN
      reads_ := kept_view_reads('kept_rider_docs') || kept_view_reads('kept_rider_held_docs')
             || kept_view_reads('kept_held_item_docs') || kept_view_reads('kept_company_rider_docs')
             || kept_view_reads('rider_list_block_counts');
      IF reads_ && emptied THEN
        PERFORM riders_recount_items();
        PERFORM kept_riders_rebuild();
        PERFORM rider_list_blocks_rebuild();
        PERFORM kept_refill('kept_held_items', 'kept_held_item_docs');
        PERFORM kept_refill('kept_company_riders', 'kept_company_rider_docs');
        emptied := emptied || '{kept_riders,kept_rider_held,kept_held_items,kept_company_riders,rider_list_blocks}';
      END IF;
      IF kept_view_reads('rider_list_entry_docs') && emptied THEN
        IF NOT kept_emptied('rider_list_entries', 'rider_list_entry_docs') THEN PERFORM rider_list_entries_rebuild(); END IF;
        emptied := emptied || '{rider_list_entries}';
      END IF;
      IF kept_view_reads('patrol_check_questioner_docs') && emptied THEN
        IF NOT kept_emptied('patrol_check_questioners', 'patrol_check_questioner_docs') THEN
          PERFORM patrol_check_questioners_rebuild();
        END IF;
        emptied := emptied || '{patrol_check_questioners}';
      END IF;
      IF kept_view_reads('kept_check_gap_docs') && emptied THEN
        PERFORM kept_refill('kept_check_gaps', 'kept_check_gap_docs');
        emptied := emptied || '{kept_check_gaps}';
      END IF;
      IF kept_view_reads('kept_assignment_day_docs') && emptied THEN
        PERFORM kept_refill('kept_assignment_days', 'kept_assignment_day_docs');
        emptied := emptied || '{kept_assignment_days}';
      END IF;
      IF (kept_view_reads('kept_rule_rider_docs') || kept_view_reads('kept_rule_day_docs')) && emptied THEN
        PERFORM kept_rules_rebuild();
        emptied := emptied || '{kept_rule_riders,kept_rule_days}';
      END IF;
      IF (kept_view_reads('kept_rider_name_gram_docs') || kept_view_reads('kept_rider_name_gram_count_docs')) && emptied THEN
        PERFORM kept_rider_name_grams_rebuild();
        emptied := emptied || '{kept_rider_name_grams,kept_rider_name_gram_counts}';
      END IF;
      IF (kept_view_reads('kept_check_quarter_docs') || kept_view_reads('kept_exchange_quarter_docs')
          || kept_view_reads('kept_exchange_day_docs')) && emptied THEN
        PERFORM kept_counts_rebuild();
        RETURN true;
      END IF;
      RETURN false;
    END $$;

    CREATE OR REPLACE FUNCTION truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, tag) VALUES ('T', TG_TABLE_NAME);
      RETURN NULL;
    END $$;


    -- Takes up to \`batch\` rows of the log and writes what they name, in this transaction. Returns how
    -- many rows it took (0: the log is empty), or -1 when another session is applying (one at a time).
    -- A lock held by a writer for longer than lock_timeout ends the batch with an error (55P03): it is
    -- rolled back, its rows stay in the log, and the next call tries again.
    CREATE OR REPLACE FUNCTION kept_apply(batch integer DEFAULT 1000) RETURNS integer LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '200ms' SET kept.applying = 'on'
      -- Each statement planned for the ids at hand: a plan made once for any array may read whole tables.
      -- No JIT: a batch's statements are short, and compiling them cost more than it saved.
      SET plan_cache_mode = force_custom_plan SET jit = off AS $$
    DECLARE
      state kept_log_state;
      taken integer;
      truncated text[];
      deltas kept_changes[];
      horizon xid8;
      settled bigint[];
      riders_ bigint[]; held bigint[]; checked bigint[]; moved_items bigint[]; answered bigint[]; entries bigint[]; renamed bigint[];
      products_ bigint[]; variations bigint[]; companies_ bigint[]; countries_ bigint[]; questions_ bigint[];
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('kept_apply', 0)) THEN RETURN -1; END IF;

      -- The log overflowed: what it holds goes (the rebuild will write it all), and writers log again
      -- from this commit on; the rebuild waits until every transaction that may have skipped the log
      -- has ended (those running when the next batch begins).
      SELECT * INTO state FROM kept_log_state;
      IF state.overflowed THEN
        UPDATE kept_log_state SET overflowed = false, rebuild = true, rebuild_waits_for = NULL;
        DELETE FROM kept_changes;
        PERFORM pg_stat_force_next_flush(); -- the log's emptiness, in the statistics writers read, at this commit
        RETURN batch;
      ELSIF state.rebuild AND state.rebuild_waits_for IS NULL THEN
        -- The transactions of this database running now (each holds the lock of its own id).
        UPDATE kept_log_state SET rebuild_waits_for = ARRAY(
          SELECT l.transactionid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid <> pg_backend_pid()
             AND a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      ELSIF state.rebuild AND NOT EXISTS (
              SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = ANY (state.rebuild_waits_for)) THEN
        UPDATE kept_log_state SET rebuild = false, rebuild_waits_for = NULL;
        PERFORM kept_rebuild();
        RETURN batch;
      END IF;

      WITH taken AS (
        DELETE FROM kept_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM kept_changes LIMIT batch)) RETURNING *
      )
      SELECT count(*), array_agg(DISTINCT coalesce(tag, '*')) FILTER (WHERE kind = 'T'),
             array_agg(ROW(t.kind, t.id, t.at, t.logged_at, t.n, t.m, t.tag)::kept_changes) FILTER (WHERE kind IN ('q', 'x')),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'r'), array_agg(DISTINCT id) FILTER (WHERE kind = 'h'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'g'), array_agg(DISTINCT id) FILTER (WHERE kind = 'k'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'c'), array_agg(DISTINCT id) FILTER (WHERE kind = 'e'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'N'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'p'), array_agg(DISTINCT id) FILTER (WHERE kind = 'v'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'o'), array_agg(DISTINCT id) FILTER (WHERE kind = 'n'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'Q')
        INTO taken, truncated, deltas, riders_, held, checked, moved_items, answered, entries, renamed,
             products_, variations, companies_, countries_, questions_
        FROM taken t;
      IF taken = 0 THEN RETURN 0; END IF;
      -- A source table truncated: what reads it is written afresh (a TRUNCATE logged before migration 036
      -- names no table: everything); what it counted is then in the rebuilt counts, not in these deltas.
      IF '*' = ANY (truncated) THEN
        PERFORM kept_rebuild();
        RETURN taken;
      ELSIF truncated IS NOT NULL AND kept_rebuild_truncated(truncated) THEN
        deltas := NULL;
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

      PERFORM rider_list_entries_refresh_unlocked(entries);
      PERFORM kept_assignment_days_refresh_riders(held);
      PERFORM kept_check_gaps_refresh_unlocked(checked);
      PERFORM patrol_check_questioners_refresh_unlocked(coalesce(answered, '{}'));
      IF deltas IS NOT NULL THEN PERFORM kept_add_counts(deltas); END IF;
      -- Last, the rows writers also lock (their riders and their rows' list keys): held from here to the
      -- commit only, so a writer never waits on this batch for long.
      -- A moved rider's rows are checked again with each later batch that names it, until no transaction
      -- of this database that may have written one with the old 3PL can still be running (every one that
      -- could had its id before this batch had its own: \`until\`); then once more, and it leaves
      -- kept_moved_riders.
      INSERT INTO kept_moved_riders AS k (rider_id, until)
        SELECT DISTINCT unnest(riders_), pg_current_xact_id()
        ON CONFLICT (rider_id) DO UPDATE SET until = EXCLUDED.until;
      settled := '{}';
      IF EXISTS (SELECT 1 FROM kept_moved_riders WHERE rider_id <> ALL (riders_)) THEN
        horizon := kept_oldest_writer();
        WITH settling AS (
          DELETE FROM kept_moved_riders WHERE rider_id IN (
            SELECT rider_id FROM kept_moved_riders WHERE until < horizon LIMIT 1000)
          RETURNING rider_id)
        SELECT coalesce(array_agg(rider_id), '{}') INTO settled FROM settling;
      END IF;
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)) || settled,
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)) || settled,
        moved_items);
      PERFORM kept_apply_riders(held);
      PERFORM kept_rules_refresh(held || checked);
      PERFORM kept_rider_name_grams_refresh(riders_ || coalesce(renamed, '{}'));
      RETURN taken;
    END $$;
`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(FUNCTIONS);
}

// Going back to rebuilding everything after any TRUNCATE is restoring the backup taken before this
// migration (the kept data it leaves is the same either way).
export async function down(): Promise<void> {
  throw new Error('Migration 036 (a TRUNCATE rebuilds what reads the table) cannot be undone: restore the backup taken before it.');
}

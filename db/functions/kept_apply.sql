-- The function public.kept_apply, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_apply(batch integer) ──
CREATE OR REPLACE FUNCTION public.kept_apply(batch integer) RETURNS integer LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET lock_timeout = 200ms
  SET kept.applying = on
  SET plan_cache_mode = force_custom_plan
  SET jit = off
AS $$
    DECLARE
      state kept_log_state;
      taken integer;
      truncated text[];
      deltas kept_changes[];
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
      IF taken = 0 THEN
        -- The log is empty: a few moved riders settle while nobody writes.
        settled := kept_moved_riders_settle(5, '{}');
        IF cardinality(settled) > 0 THEN PERFORM kept_apply_list_keys(settled, settled, '{}'); END IF;
        RETURN 0;
      END IF;
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
      -- could had its id before this batch had its own: `until`); then once more, and it leaves
      -- kept_moved_riders.
      INSERT INTO kept_moved_riders AS k (rider_id, until)
        SELECT DISTINCT unnest(riders_), pg_current_xact_id()
        ON CONFLICT (rider_id) DO UPDATE SET until = EXCLUDED.until;
      -- Settled, at most twice as many riders as this batch moved: a burst of moves is settled over the
      -- batches after it, at the pace moves come, and never makes a small batch pay for a thousand.
      settled := kept_moved_riders_settle(2 * cardinality(riders_) + 1, riders_);
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)) || settled,
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)) || settled,
        moved_items);
      PERFORM kept_apply_riders(held);
      PERFORM kept_rules_refresh(held || checked);
      PERFORM kept_rider_name_grams_refresh(riders_ || coalesce(renamed, '{}'));
      RETURN taken;
    END $$;

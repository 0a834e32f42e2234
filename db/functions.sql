-- Every function of the service and every trigger on the data, as the migrations leave them now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- Triggers

CREATE TRIGGER assignments_delete_kept_changes AFTER DELETE ON public.assignments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER assignments_insert_kept_changes AFTER INSERT ON public.assignments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER assignments_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON public.assignments FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION rider_company_list_key();
CREATE TRIGGER assignments_truncate_kept_changes AFTER TRUNCATE ON public.assignments FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER assignments_update_kept_changes AFTER UPDATE ON public.assignments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER companies_kept_changes AFTER UPDATE OF name ON public.companies FOR EACH ROW WHEN ((old.name IS DISTINCT FROM new.name)) EXECUTE FUNCTION catalog_log_kept_changes('o');
CREATE TRIGGER countries_kept_changes AFTER UPDATE OF code ON public.countries FOR EACH ROW WHEN ((old.code IS DISTINCT FROM new.code)) EXECUTE FUNCTION catalog_log_kept_changes('n');
CREATE TRIGGER patrol_check_answers_delete_kept_changes AFTER DELETE ON public.patrol_check_answers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_check_answers_insert_kept_changes AFTER INSERT ON public.patrol_check_answers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_check_answers_truncate_kept_changes AFTER TRUNCATE ON public.patrol_check_answers FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER patrol_check_answers_update_kept_changes AFTER UPDATE ON public.patrol_check_answers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_checks_delete_kept_changes AFTER DELETE ON public.patrol_checks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER patrol_checks_insert_kept_changes AFTER INSERT ON public.patrol_checks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER patrol_checks_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON public.patrol_checks FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION rider_company_list_key();
CREATE TRIGGER patrol_checks_truncate_kept_changes AFTER TRUNCATE ON public.patrol_checks FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER patrol_checks_update_kept_changes AFTER UPDATE ON public.patrol_checks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER product_exchanges_delete_kept_changes AFTER DELETE ON public.product_exchanges REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_exchanges_insert_kept_changes AFTER INSERT ON public.product_exchanges REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_exchanges_list_keys BEFORE INSERT OR UPDATE OF old_assignment_id, new_assignment_id, rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id ON public.product_exchanges FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION product_exchanges_list_keys();
CREATE TRIGGER product_exchanges_truncate_kept_changes AFTER TRUNCATE ON public.product_exchanges FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER product_exchanges_update_kept_changes AFTER UPDATE ON public.product_exchanges REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_returns_list_keys BEFORE INSERT OR UPDATE OF assignment_id, rider_id, company_id, product_id, variation_id ON public.product_returns FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION product_returns_list_keys();
CREATE TRIGGER product_variations_kept_changes AFTER UPDATE OF name ON public.product_variations FOR EACH ROW WHEN ((old.name IS DISTINCT FROM new.name)) EXECUTE FUNCTION catalog_log_kept_changes('v');
CREATE TRIGGER products_kept_changes AFTER UPDATE OF name, exchange_after_days ON public.products FOR EACH ROW WHEN (((old.name IS DISTINCT FROM new.name) OR (old.exchange_after_days IS DISTINCT FROM new.exchange_after_days))) EXECUTE FUNCTION catalog_log_kept_changes('p');
CREATE TRIGGER questions_kept_changes AFTER UPDATE OF text, category ON public.questions FOR EACH ROW WHEN (((old.text IS DISTINCT FROM new.text) OR (old.category IS DISTINCT FROM new.category))) EXECUTE FUNCTION catalog_log_kept_changes('Q');
CREATE TRIGGER rider_list_zone_attention AFTER UPDATE ON public.rider_list_zone FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_attention();
CREATE TRIGGER rider_list_zone_rules AFTER UPDATE ON public.rider_list_zone FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_rules();
CREATE TRIGGER riders_delete_kept_changes AFTER DELETE ON public.riders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION riders_log_kept_changes();
CREATE TRIGGER riders_insert_kept_changes AFTER INSERT ON public.riders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION riders_log_kept_changes();
CREATE TRIGGER riders_truncate_kept_changes AFTER TRUNCATE ON public.riders FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER riders_update_kept_changes AFTER UPDATE OF id, company_id, country_id, name ON public.riders FOR EACH ROW WHEN (((((old.id IS DISTINCT FROM new.id) OR (old.company_id IS DISTINCT FROM new.company_id)) OR (old.country_id IS DISTINCT FROM new.country_id)) OR (old.name IS DISTINCT FROM new.name))) EXECUTE FUNCTION riders_log_kept_changes();

-- Functions, by name

-- ── public.assignments_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
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

-- ── public.catalog_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

-- ── public.kept_add_counts(deltas kept_changes[]) ──
CREATE OR REPLACE FUNCTION public.kept_add_counts(deltas kept_changes[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      check_zeros timestamptz[];
      exchange_zeros timestamptz[];
      day_zeros date[];
    BEGIN
      WITH d AS (SELECT * FROM unnest(deltas)), cq AS (
        INSERT INTO kept_check_quarters AS k (bucket, company_id, checks, passed)
          SELECT at, id, sum(n), sum(m) FROM d WHERE kind = 'q' GROUP BY 1, 2
          ON CONFLICT (bucket, company_id) DO UPDATE SET checks = k.checks + EXCLUDED.checks, passed = k.passed + EXCLUDED.passed
          RETURNING bucket, (checks, passed) = (0, 0) AS zero
      ), xq AS (
        INSERT INTO kept_exchange_quarters AS k (bucket, company_id, replacement_type, exchanges)
          SELECT at, id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (bucket, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING bucket, exchanges = 0 AS zero
      ), xd AS (
        INSERT INTO kept_exchange_days AS k (day, company_id, replacement_type, exchanges)
          SELECT kept_utc_day(at), id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (day, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING day, exchanges = 0 AS zero
      )
      SELECT (SELECT array_agg(DISTINCT bucket) FROM cq WHERE zero), (SELECT array_agg(DISTINCT bucket) FROM xq WHERE zero),
             (SELECT array_agg(DISTINCT day) FROM xd WHERE zero)
        INTO check_zeros, exchange_zeros, day_zeros;
      IF check_zeros IS NOT NULL THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_zeros) AND checks = 0 AND passed = 0;
      END IF;
      IF exchange_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_zeros) AND exchanges = 0;
      END IF;
      IF day_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_days WHERE day = ANY (day_zeros) AND exchanges = 0;
      END IF;
    END $$;

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
      -- could had its id before this batch had its own: `until`); then once more, and it leaves
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

-- ── public.kept_apply_all() ──
CREATE OR REPLACE FUNCTION public.kept_apply_all() RETURNS bigint LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      total bigint := 0;
      taken integer;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('kept_apply', 0));
      LOOP
        taken := kept_apply(10000);
        EXIT WHEN taken <= 0;
        total := total + taken;
      END LOOP;
      RETURN total;
    END $$;

-- ── public.kept_apply_list_keys(riders_ bigint[], checked bigint[], assignments_ bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_apply_list_keys(riders_ bigint[], checked bigint[], assignments_ bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      deltas kept_changes[];
      exchanges bigint[];
      items bigint[];
    BEGIN
      WITH was AS MATERIALIZED (
        SELECT t.id, t.company_id FROM patrol_checks t JOIN riders r ON r.id = t.rider_id
         WHERE r.id = ANY (checked) AND t.company_id IS DISTINCT FROM r.company_id
      ), fixed AS (
        UPDATE patrol_checks t SET company_id = r.company_id FROM riders r, was w
         WHERE w.id = t.id AND r.id = t.rider_id AND t.company_id IS DISTINCT FROM r.company_id
        RETURNING w.company_id AS was, t.company_id AS now, kept_quarter(t.checked_at) AS bucket,
                  (t.id_valid AND t.plate_valid AND t.sticker_valid)::int AS passed
      )
      SELECT array_agg(ROW('q', company_id, bucket, NULL, n, m, NULL)::kept_changes) INTO deltas
        FROM (SELECT company_id, bucket, sum(sign)::int AS n, sum(sign * passed)::int AS m
                FROM (SELECT was AS company_id, bucket, -1 AS sign, passed FROM fixed
                      UNION ALL SELECT now, bucket, 1, passed FROM fixed) s
               WHERE company_id IS NOT NULL GROUP BY 1, 2) d;
      UPDATE assignments t SET company_id = r.company_id FROM riders r
       WHERE r.id = ANY (riders_) AND t.rider_id = r.id AND t.company_id IS DISTINCT FROM r.company_id;
      -- Returns and exchanges as their views define them, read from each rider's items by index (an item
      -- given to another rider is in assignments_, its row logged by the UPDATE that moved it).
      items := ARRAY(SELECT id FROM assignments WHERE rider_id = ANY (riders_));
      UPDATE product_returns t SET rider_id = a.rider_id, company_id = r.company_id, product_id = a.product_id, variation_id = a.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id
       WHERE t.assignment_id = ANY (items) AND a.id = ANY (items) AND a.id = t.assignment_id
         AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (a.rider_id, r.company_id, a.product_id, a.variation_id);
      -- The exchanges of these riders' items and of these items: ids first, each read by its index.
      exchanges := ARRAY(
        SELECT id FROM product_exchanges
         WHERE old_assignment_id = ANY (items || assignments_)
        UNION SELECT id FROM product_exchanges WHERE new_assignment_id = ANY (assignments_));
      IF cardinality(exchanges) > 0 THEN
        WITH was AS MATERIALIZED (
          SELECT id, company_id FROM product_exchanges WHERE id = ANY (exchanges)
        ), fixed AS (
          UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
                 old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
                 new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
            FROM was w, product_exchange_list_key_docs d
           WHERE t.id = ANY (exchanges) AND w.id = t.id AND d.id = t.id
             AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
                 IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id)
          RETURNING w.company_id AS was, t.company_id AS now, kept_quarter(t.exchanged_at) AS bucket, t.replacement_type
        )
        SELECT coalesce(deltas, '{}') || coalesce(array_agg(ROW('x', company_id, bucket, NULL, n, NULL, replacement_type)::kept_changes), '{}')
          INTO deltas
          FROM (SELECT company_id, bucket, replacement_type, sum(sign)::int AS n
                  FROM (SELECT was AS company_id, bucket, replacement_type, -1 AS sign FROM fixed WHERE was IS DISTINCT FROM now
                        UNION ALL SELECT now, bucket, replacement_type, 1 FROM fixed WHERE was IS DISTINCT FROM now) s
                 WHERE company_id IS NOT NULL GROUP BY 1, 2, 3) d;
      END IF;
      IF cardinality(assignments_) > 0 THEN
        UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
          FROM product_return_list_key_docs d
         WHERE t.assignment_id = ANY (assignments_) AND d.id = t.id
           AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
      END IF;
      IF cardinality(deltas) > 0 THEN PERFORM kept_add_counts(deltas); END IF;
    END $$;

-- ── public.kept_apply_riders(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_apply_riders(ids bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
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

-- ── public.kept_assignment_days_refresh_riders(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_assignment_days_refresh_riders(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
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

-- ── public.kept_attention_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_attention_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_check_gaps, kept_assignment_days, kept_check_quarters, kept_exchange_quarters, kept_exchange_days, kept_held_items, kept_company_riders IN EXCLUSIVE MODE;
      PERFORM kept_attention_rebuild_unlocked();
    END $$;

-- ── public.kept_attention_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.kept_attention_rebuild_unlocked() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE of the tables it reads (and of these).
      DELETE FROM kept_check_gaps; DELETE FROM kept_assignment_days; DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters; DELETE FROM kept_exchange_days; DELETE FROM kept_held_items; DELETE FROM kept_company_riders;
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
      INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs;
      INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs;
      INSERT INTO kept_held_items SELECT * FROM kept_held_item_docs;
      INSERT INTO kept_company_riders SELECT * FROM kept_company_rider_docs;
    $$;

-- ── public.kept_check_gaps_refresh_unlocked(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_check_gaps_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
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

-- ── public.kept_counts_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_counts_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_check_quarters, kept_exchange_quarters, kept_exchange_days IN EXCLUSIVE MODE;
      DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters;
      DELETE FROM kept_exchange_days;
      WITH gone AS (DELETE FROM kept_changes WHERE kind IN ('q', 'x')),
      xq AS (INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs),
      xd AS (INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs)
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
    END $$;

-- ── public.kept_day(at timestamp with time zone, zone text) ──
CREATE OR REPLACE FUNCTION public.kept_day(at timestamp with time zone, zone text)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((at AT TIME ZONE zone))::date;

-- ── public.kept_days(from_day date, until_day date) ──
CREATE OR REPLACE FUNCTION public.kept_days(from_day date, until_day date)
 RETURNS daterange
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN ((until_day IS NULL) OR (from_day < until_day)) THEN daterange(from_day, until_day) ELSE NULL::daterange END;

-- ── public.kept_emptied(kept regclass, docs regclass) ──
CREATE OR REPLACE FUNCTION public.kept_emptied(kept regclass, docs regclass) RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
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

-- ── public.kept_freshness(OUT pending bigint, OUT oldest timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_freshness(OUT pending bigint, OUT oldest timestamp with time zone) RETURNS record LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      SELECT count(*), min(logged_at) FROM (SELECT logged_at FROM kept_changes LIMIT 100000) l;
    $$;

-- ── public.kept_logging() ──
CREATE OR REPLACE FUNCTION public.kept_logging() RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      s kept_log_state;
    BEGIN
      SELECT * INTO s FROM kept_log_state;
      IF s.overflowed THEN RETURN false; END IF;
      -- The log's rows as the statistics count them (about a second behind): no scan, no lock.
      IF pg_stat_get_live_tuples('kept_changes'::regclass) <= s.max_rows THEN RETURN true; END IF;
      UPDATE kept_log_state SET overflowed = true WHERE NOT overflowed;
      RETURN false;
    END $$;

-- ── public.kept_oldest_writer() ──
CREATE OR REPLACE FUNCTION public.kept_oldest_writer() RETURNS xid8 LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      mine bigint := pg_current_xact_id()::text::bigint;
      oldest bigint;
    BEGIN
      SELECT min(l.transactionid::text::bigint) INTO oldest
        FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid IS DISTINCT FROM pg_backend_pid()
         AND (l.pid IS NULL OR a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      IF oldest IS NULL THEN RETURN mine::text::xid8; END IF;
      RETURN ((mine >> 32 << 32) + oldest - CASE WHEN oldest > (mine & 4294967295) THEN 4294967296 ELSE 0 END)::text::xid8;
    END $$;

-- ── public.kept_quarter(t timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_quarter(t timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN date_bin('00:15:00'::interval, t, '2000-01-01 00:00:00+00'::timestamp with time zone);

-- ── public.kept_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET kept.applying = on
AS $$
    BEGIN
      DELETE FROM kept_changes WHERE kind NOT IN ('q', 'x');
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();
      PERFORM kept_rules_rebuild();
      PERFORM kept_rider_name_grams_rebuild();
      PERFORM kept_counts_rebuild();
    END $$;

-- ── public.kept_rebuild_truncated(emptied text[]) ──
CREATE OR REPLACE FUNCTION public.kept_rebuild_truncated(emptied text[]) RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET kept.applying = on
AS $$
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

-- ── public.kept_refill(kept regclass, docs regclass) ──
CREATE OR REPLACE FUNCTION public.kept_refill(kept regclass, docs regclass) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF kept_emptied(kept, docs) THEN RETURN; END IF;
      EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', kept);
      EXECUTE format('DELETE FROM %s', kept);
      EXECUTE format('INSERT INTO %s SELECT * FROM %s', kept, docs);
    END $$;

-- ── public.kept_rider_name_grams_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rider_name_grams_rebuild()
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO '$user', 'public'
BEGIN ATOMIC
 DELETE FROM kept_rider_name_grams;
 INSERT INTO kept_rider_name_grams (gram, name, rider_id, name_key, company_id)  SELECT kept_rider_name_gram_docs.gram,
             kept_rider_name_gram_docs.name,
             kept_rider_name_gram_docs.rider_id,
             kept_rider_name_gram_docs.name_key,
             kept_rider_name_gram_docs.company_id
            FROM kept_rider_name_gram_docs;
 DELETE FROM kept_rider_name_gram_counts;
 INSERT INTO kept_rider_name_gram_counts (gram, riders)  SELECT kept_rider_name_gram_count_docs.gram,
             kept_rider_name_gram_count_docs.riders
            FROM kept_rider_name_gram_count_docs;
END;

-- ── public.kept_rider_name_grams_refresh(riders_ bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_rider_name_grams_refresh(riders_ bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF cardinality(riders_) = 0 THEN RETURN; END IF;
      WITH fresh AS MATERIALIZED (
        SELECT DISTINCT b.gram, left(r.name, 500) AS name, r.id AS rider_id, r.name_key, r.company_id
          FROM riders r CROSS JOIN LATERAL unnest(rider_name_bigrams(r.name_key)) AS b(gram)
         WHERE r.id = ANY (riders_)
      ), was AS MATERIALIZED (
        SELECT gram, name, rider_id, name_key, company_id FROM kept_rider_name_grams WHERE rider_id = ANY (riders_)
      ), gone AS (
        -- (Set differences, hashed: an anti-join of two of these CTEs was a nested loop, quadratic.)
        DELETE FROM kept_rider_name_grams k
         USING (SELECT gram, name, rider_id FROM was EXCEPT SELECT gram, name, rider_id FROM fresh) d
         WHERE (k.gram, k.name, k.rider_id) = (d.gram, d.name, d.rider_id)
      ), put AS (
        INSERT INTO kept_rider_name_grams AS k
          SELECT * FROM (SELECT * FROM fresh EXCEPT SELECT * FROM was) d
          ON CONFLICT (gram, name, rider_id) DO UPDATE SET name_key = EXCLUDED.name_key, company_id = EXCLUDED.company_id
      ), counted AS (
        SELECT gram, sum(sign)::int AS riders
          FROM (SELECT gram, rider_id, 1 AS sign FROM fresh UNION ALL SELECT DISTINCT gram, rider_id, -1 FROM was) d
         GROUP BY gram HAVING sum(sign) <> 0
      ), recounted AS (
        UPDATE kept_rider_name_gram_counts k SET riders = k.riders + c.riders FROM counted c WHERE k.gram = c.gram
      )
      -- (Not ON CONFLICT: the row it would insert is held to the table's check, and a count may fall.)
      INSERT INTO kept_rider_name_gram_counts (gram, riders)
        SELECT gram, riders FROM counted c WHERE NOT EXISTS (SELECT 1 FROM kept_rider_name_gram_counts k WHERE k.gram = c.gram);
      DELETE FROM kept_rider_name_gram_counts WHERE riders = 0;
    END $$;

-- ── public.kept_riders_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_riders_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_riders, kept_rider_held IN EXCLUSIVE MODE;
      DELETE FROM kept_riders;
      INSERT INTO kept_riders SELECT rider_id, company_id, active_items, returned_items FROM kept_rider_docs;
      DELETE FROM kept_rider_held;
      INSERT INTO kept_rider_held SELECT * FROM kept_rider_held_docs;
    END $$;

-- ── public.kept_rules_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rules_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_rule_riders, kept_rule_days IN EXCLUSIVE MODE;
      DELETE FROM kept_rule_riders;
      INSERT INTO kept_rule_riders SELECT * FROM kept_rule_rider_docs;
      DELETE FROM kept_rule_days;
      INSERT INTO kept_rule_days 
      SELECT s.rule, s.company_id, e.day, sum(e.entered)::int AS entered, sum(e.exited)::int AS exited
        FROM (SELECT rule, company_id, days, 1 AS sign FROM kept_rule_riders) s
        CROSS JOIN LATERAL unnest(s.days) AS u(span)
        CROSS JOIN LATERAL (VALUES (lower(u.span), s.sign, 0), (upper(u.span), 0, s.sign)) AS e(day, entered, exited)
       WHERE e.day IS NOT NULL
       GROUP BY 1, 2, 3
      HAVING (sum(e.entered), sum(e.exited)) <> (0, 0);
    END $$;

-- ── public.kept_rules_refresh(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_rules_refresh(ids bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET jit = off
AS $$
    BEGIN
      IF cardinality(ids) = 0 THEN RETURN; END IF;
      ids := ARRAY(SELECT DISTINCT unnest(ids));
      WITH fresh AS MATERIALIZED (SELECT * FROM kept_rule_rider_docs WHERE rider_id = ANY (ids)),
      was AS MATERIALIZED (SELECT k.* FROM unnest(ids) AS i(id) JOIN kept_rule_riders k ON k.rider_id = i.id),
      added AS MATERIALIZED (SELECT * FROM fresh EXCEPT ALL SELECT * FROM was),
      removed AS MATERIALIZED (SELECT * FROM was EXCEPT ALL SELECT * FROM fresh),
      deltas AS MATERIALIZED (
      SELECT s.rule, s.company_id, e.day, sum(e.entered)::int AS entered, sum(e.exited)::int AS exited
        FROM (SELECT rule, company_id, days, 1 AS sign FROM added UNION ALL SELECT rule, company_id, days, -1 FROM removed) s
        CROSS JOIN LATERAL unnest(s.days) AS u(span)
        CROSS JOIN LATERAL (VALUES (lower(u.span), s.sign, 0), (upper(u.span), 0, s.sign)) AS e(day, entered, exited)
       WHERE e.day IS NOT NULL
       GROUP BY 1, 2, 3
      HAVING (sum(e.entered), sum(e.exited)) <> (0, 0)
      ), changed AS (
        UPDATE kept_rule_days k SET entered = k.entered + d.entered, exited = k.exited + d.exited
          FROM deltas d WHERE (k.rule, k.company_id, k.day) = (d.rule, d.company_id, d.day)
      ), counted AS (
        INSERT INTO kept_rule_days SELECT * FROM deltas d
         WHERE NOT EXISTS (SELECT 1 FROM kept_rule_days k WHERE (k.rule, k.company_id, k.day) = (d.rule, d.company_id, d.day))
      ), gone AS (
        DELETE FROM kept_rule_riders k USING removed r
         WHERE (k.rider_id, k.rule) = (r.rider_id, r.rule) AND NOT EXISTS (SELECT 1 FROM added a WHERE (a.rider_id, a.rule) = (r.rider_id, r.rule))
      )
      INSERT INTO kept_rule_riders AS k SELECT * FROM added
        ON CONFLICT (rider_id, rule) DO UPDATE SET company_id = EXCLUDED.company_id, days = EXCLUDED.days;
      DELETE FROM kept_rule_days WHERE entered = 0 AND exited = 0;
    END $$;

-- ── public.kept_rules_set(failed_checks integer, unchecked_days integer) ──
CREATE OR REPLACE FUNCTION public.kept_rules_set(failed_checks integer, unchecked_days integer) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      UPDATE kept_rule_settings s SET failed_checks = kept_rules_set.failed_checks, unchecked_days = kept_rules_set.unchecked_days
       WHERE (s.failed_checks, s.unchecked_days) IS DISTINCT FROM (kept_rules_set.failed_checks, kept_rules_set.unchecked_days);
      IF FOUND THEN PERFORM kept_rules_rebuild(); END IF;
    END $$;

-- ── public.kept_utc_day(t timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_utc_day(t timestamp with time zone)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((t AT TIME ZONE 'UTC'::text))::date;

-- ── public.kept_view_reads(view regclass) ──
CREATE OR REPLACE FUNCTION public.kept_view_reads(view regclass) RETURNS text[] LANGUAGE sql
  SET search_path = "$user", public
AS $$
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

-- ── public.list_keys_rebuild() ──
CREATE OR REPLACE FUNCTION public.list_keys_rebuild() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      UPDATE patrol_checks t SET company_id = d.company_id FROM patrol_check_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE assignments t SET company_id = d.company_id FROM assignment_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
        FROM product_return_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.product_id, t.variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
      UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
             old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
             new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
        FROM product_exchange_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id);
    $$;

-- ── public.patrol_check_answers_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

-- ── public.patrol_check_questioners_rebuild() ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_rebuild() RETURNS void LANGUAGE plpgsql
AS $$
    BEGIN
      LOCK TABLE patrol_check_questioners IN EXCLUSIVE MODE;
      PERFORM patrol_check_questioners_rebuild_unlocked();
    END $$;

-- ── public.patrol_check_questioners_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_rebuild_unlocked() RETURNS void LANGUAGE sql
AS $$
      DELETE FROM patrol_check_questioners;
      INSERT INTO patrol_check_questioners (check_id, doc) SELECT check_id, doc FROM patrol_check_questioner_docs;
    $$;

-- ── public.patrol_check_questioners_refresh_unlocked(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM patrol_check_questioners WHERE check_id = ANY (ids);
      INSERT INTO patrol_check_questioners (check_id, doc)
        SELECT check_id, doc FROM patrol_check_questioner_docs WHERE check_id = ANY (ids);
    $$;

-- ── public.patrol_checks_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), count(*), count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM new_rows GROUP BY 2, 3;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM old_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), -count(*), -count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM old_rows GROUP BY 2, 3;
      ELSE
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows UNION SELECT 'g', rider_id, NULL, NULL, NULL FROM old_rows
          UNION ALL
          SELECT 'q', company_id, bucket, sum(sign)::int, sum(sign * passed)::int
            FROM (SELECT company_id, kept_quarter(checked_at) AS bucket, 1 AS sign, (id_valid AND plate_valid AND sticker_valid)::int AS passed FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(checked_at), -1, (id_valid AND plate_valid AND sticker_valid)::int FROM old_rows) d
           GROUP BY 2, 3 HAVING (sum(sign), sum(sign * passed)) <> (0, 0);
      END IF;
      RETURN NULL;
    END $$;

-- ── public.product_exchanges_list_keys() ──
CREATE OR REPLACE FUNCTION public.product_exchanges_list_keys() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT oa.rider_id, r.company_id, oa.product_id, oa.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.old_product_id, NEW.old_variation_id
        FROM assignments oa JOIN riders r ON r.id = oa.rider_id WHERE oa.id = NEW.old_assignment_id;
      SELECT na.product_id, na.variation_id INTO NEW.new_product_id, NEW.new_variation_id
        FROM assignments na WHERE na.id = NEW.new_assignment_id;
      RETURN NEW;
    END $$;

-- ── public.product_exchanges_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, count(*) FROM new_rows GROUP BY 2, 3, 4;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, -count(*) FROM old_rows GROUP BY 2, 3, 4;
      ELSE
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, bucket, replacement_type, sum(sign)::int
            FROM (SELECT company_id, kept_quarter(exchanged_at) AS bucket, replacement_type, 1 AS sign FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(exchanged_at), replacement_type, -1 FROM old_rows) d
           GROUP BY 2, 3, 4 HAVING sum(sign) <> 0;
      END IF;
      RETURN NULL;
    END $$;

-- ── public.product_returns_list_keys() ──
CREATE OR REPLACE FUNCTION public.product_returns_list_keys() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT a.rider_id, r.company_id, a.product_id, a.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.product_id, NEW.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id WHERE a.id = NEW.assignment_id;
      RETURN NEW;
    END $$;

-- ── public.rider_company_list_key() ──
CREATE OR REPLACE FUNCTION public.rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      SELECT r.company_id INTO NEW.company_id FROM riders r WHERE r.id = NEW.rider_id;
      RETURN NEW;
    END $$;

-- ── public.rider_list_blocks_rebuild() ──
CREATE OR REPLACE FUNCTION public.rider_list_blocks_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE rider_list_blocks IN EXCLUSIVE MODE;
      PERFORM rider_list_blocks_rebuild_unlocked();
    END $$;

-- ── public.rider_list_blocks_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.rider_list_blocks_rebuild_unlocked() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM rider_list_blocks;
      INSERT INTO rider_list_blocks SELECT * FROM rider_list_block_counts;
    $$;

-- ── public.rider_list_entries_rebuild() ──
CREATE OR REPLACE FUNCTION public.rider_list_entries_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE rider_list_entries IN EXCLUSIVE MODE;
      PERFORM rider_list_entries_rebuild_unlocked();
    END $$;

-- ── public.rider_list_entries_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.rider_list_entries_rebuild_unlocked() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM rider_list_entries;
      INSERT INTO rider_list_entries (rider_id, all_entry, active_entry, returned_entry)
        SELECT rider_id, all_entry, active_entry, returned_entry FROM rider_list_entry_docs;
    $$;

-- ── public.rider_list_entries_refresh_unlocked(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.rider_list_entries_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM rider_list_entries WHERE rider_id = ANY (ids);
      INSERT INTO rider_list_entries (rider_id, all_entry, active_entry, returned_entry)
        SELECT rider_id, all_entry, active_entry, returned_entry FROM rider_list_entry_docs WHERE rider_id = ANY (ids);
    $$;

-- ── public.rider_list_set_zone(new_zone text) ──
CREATE OR REPLACE FUNCTION public.rider_list_set_zone(new_zone text) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      PERFORM now() AT TIME ZONE new_zone; -- an unknown zone fails here, before anything changes
      UPDATE rider_list_zone SET zone = new_zone;
      PERFORM rider_list_entries_rebuild();
    END $$;

-- ── public.rider_list_zone_keep_attention() ──
CREATE OR REPLACE FUNCTION public.rider_list_zone_keep_attention() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_assignment_days IN EXCLUSIVE MODE;
      DELETE FROM kept_assignment_days;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      RETURN NULL;
    END $$;

-- ── public.rider_list_zone_keep_rules() ──
CREATE OR REPLACE FUNCTION public.rider_list_zone_keep_rules() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      PERFORM kept_rules_rebuild();
      RETURN NULL;
    END $$;

-- ── public.rider_name_bigrams(key text) ──
CREATE OR REPLACE FUNCTION public.rider_name_bigrams(key text)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
RETURN ARRAY(SELECT DISTINCT substr(w.w, i.i, 2) AS substr FROM regexp_split_to_table(rider_name_bigrams.key, ' '::text) w(w), LATERAL generate_series(1, (length(w.w) - 1)) i(i));

-- ── public.rider_name_key(text) ──
CREATE OR REPLACE FUNCTION public.rider_name_key(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
RETURN lower(regexp_replace(unaccent('unaccent'::regdictionary, $1), '\s+'::text, ' '::text, 'g'::text));

-- ── public.riders_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_LEVEL = 'ROW' THEN
        IF (NEW.id, NEW.company_id, NEW.country_id) = (OLD.id, OLD.company_id, OLD.country_id) THEN
          INSERT INTO kept_changes (kind, id) VALUES ('N', OLD.id);
          RETURN NULL;
        END IF;
        INSERT INTO kept_changes (kind, id) VALUES ('r', OLD.id);
        IF NEW.id <> OLD.id THEN INSERT INTO kept_changes (kind, id) VALUES ('r', NEW.id); END IF;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM new_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

-- ── public.riders_recount_items() ──
CREATE OR REPLACE FUNCTION public.riders_recount_items() RETURNS void LANGUAGE sql
AS $$
      UPDATE riders r
         SET active_items = coalesce(c.active, 0), returned_items = coalesce(c.returned, 0)
        FROM (SELECT r2.id,
                     count(a.id) FILTER (WHERE a.deleted_at IS NULL) AS active,
                     count(a.id) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned
                FROM riders r2 LEFT JOIN assignments a ON a.rider_id = r2.id
               GROUP BY r2.id) c
       WHERE c.id = r.id
         AND (r.active_items, r.returned_items) IS DISTINCT FROM (coalesce(c.active, 0), coalesce(c.returned, 0));
    $$;

-- ── public.truncate_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, tag) VALUES ('T', TG_TABLE_NAME);
      RETURN NULL;
    END $$;

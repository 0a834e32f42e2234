// Migration 018's applier: kept_apply() and the functions each batch calls, and kept_apply_all().

/** The name of the advisory lock that lets one session apply the log at a time. */
const APPLIER_LOCK = 'kept_apply';

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

/** The applier's functions: the riders' counts, the list keys, the quarters, kept_apply() and kept_apply_all(). */
export const APPLY = `
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
    END $$;`;

// Migration 029's differences: a rider's name bigrams, the counts plus the log's deltas, and the list keys with the counts they move.

/** kept_rider_name_grams_refresh(), kept_add_counts() and kept_apply_list_keys(). */
export const DELTA_FUNCTIONS = `
    -- A rider's name bigrams written as a difference (migration 025 wrote them all afresh): a rider moved
    -- to another 3PL updates its rows' 3PL, a renamed one replaces the rows of its old name, and the
    -- riders per bigram change only where a rider's bigrams do.
    CREATE OR REPLACE FUNCTION kept_rider_name_grams_refresh(riders_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
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

    -- The counts per quarter (and UTC day) plus what the log's rows of this batch add.
    CREATE OR REPLACE FUNCTION kept_add_counts(deltas kept_changes[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      check_buckets timestamptz[];
      exchange_buckets timestamptz[];
    BEGIN
      WITH d AS (SELECT * FROM unnest(deltas)), cq AS (
        INSERT INTO kept_check_quarters AS k (bucket, company_id, checks, passed)
          SELECT at, id, sum(n), sum(m) FROM d WHERE kind = 'q' GROUP BY 1, 2
          ON CONFLICT (bucket, company_id) DO UPDATE SET checks = k.checks + EXCLUDED.checks, passed = k.passed + EXCLUDED.passed
          RETURNING bucket
      ), xq AS (
        INSERT INTO kept_exchange_quarters AS k (bucket, company_id, replacement_type, exchanges)
          SELECT at, id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (bucket, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING bucket
      ), xd AS (
        INSERT INTO kept_exchange_days AS k (day, company_id, replacement_type, exchanges)
          SELECT kept_utc_day(at), id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (day, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
      )
      SELECT (SELECT array_agg(bucket) FROM cq), (SELECT array_agg(bucket) FROM xq) INTO check_buckets, exchange_buckets;
      IF check_buckets IS NOT NULL THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_buckets) AND checks = 0 AND passed = 0;
      END IF;
      IF exchange_buckets IS NOT NULL THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_buckets) AND exchanges = 0;
        DELETE FROM kept_exchange_days
         WHERE day = ANY (ARRAY(SELECT DISTINCT kept_utc_day(b) FROM unnest(exchange_buckets) b)) AND exchanges = 0;
      END IF;
    END $$;

    -- The list keys of these riders' rows and of these assignments' returns and exchanges, where they
    -- differ from what they copy (rows written while their rider moved), and the counts of the checks
    -- and exchanges whose 3PL that corrects moved from one 3PL to the other.
    CREATE OR REPLACE FUNCTION kept_apply_list_keys(riders_ bigint[], checked bigint[], assignments_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      deltas kept_changes[];
      exchanges bigint[];
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
      UPDATE product_returns t SET rider_id = a.rider_id, company_id = r.company_id, product_id = a.product_id, variation_id = a.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id
       WHERE a.rider_id = ANY (riders_) AND t.assignment_id = a.id
         AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (a.rider_id, r.company_id, a.product_id, a.variation_id);
      -- The exchanges of these riders' items and of these items: ids first, each read by its index.
      exchanges := ARRAY(
        SELECT id FROM product_exchanges
         WHERE old_assignment_id = ANY (ARRAY(SELECT id FROM assignments WHERE rider_id = ANY (riders_)) || assignments_)
        UNION SELECT id FROM product_exchanges WHERE new_assignment_id = ANY (assignments_));
      IF cardinality(exchanges) > 0 THEN
        WITH was AS MATERIALIZED (
          SELECT id, company_id FROM product_exchanges WHERE id = ANY (exchanges)
        ), fixed AS (
          UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
                 old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
                 new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
            FROM was w, product_exchange_list_key_docs d
           WHERE t.id = ANY (exchanges) AND d.id = ANY (exchanges) AND w.id = t.id AND d.id = t.id
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
    END $$;`;

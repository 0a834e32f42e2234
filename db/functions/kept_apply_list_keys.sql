-- The function public.kept_apply_list_keys, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

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

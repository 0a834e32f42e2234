-- The function public.kept_rider_name_grams_refresh, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

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

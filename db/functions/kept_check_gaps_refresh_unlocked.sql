-- The function public.kept_check_gaps_refresh_unlocked, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

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

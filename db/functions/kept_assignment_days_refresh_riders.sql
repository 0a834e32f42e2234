-- The function public.kept_assignment_days_refresh_riders, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

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

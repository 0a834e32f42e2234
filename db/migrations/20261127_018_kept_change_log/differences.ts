// Migration 018's refreshes written as differences: a rider's gaps between checks and its items' exchange days.

/** kept_check_gaps_refresh_unlocked (replaced) and kept_assignment_days_refresh_riders, as kept_apply() calls them. */
export const DIFFERENCES = `
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
    $$;`;

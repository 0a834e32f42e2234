-- The function public.kept_moved_riders_settle, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_moved_riders_settle(most integer, moving bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_moved_riders_settle(most integer, moving bigint[]) RETURNS bigint[] LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      horizon xid8;
      settled bigint[];
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM kept_moved_riders WHERE rider_id <> ALL (moving)) THEN RETURN '{}'; END IF;
      horizon := kept_oldest_writer();
      WITH settling AS (
        DELETE FROM kept_moved_riders WHERE rider_id IN (
          SELECT rider_id FROM kept_moved_riders WHERE until < horizon LIMIT most)
        RETURNING rider_id)
      SELECT coalesce(array_agg(rider_id), '{}') INTO settled FROM settling;
      RETURN settled;
    END $$;

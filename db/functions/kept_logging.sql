-- The function public.kept_logging, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

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

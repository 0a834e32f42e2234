-- The function public.kept_freshness, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_freshness(OUT pending bigint, OUT oldest timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_freshness(OUT pending bigint, OUT oldest timestamp with time zone) RETURNS record LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      SELECT count(*), min(logged_at) FROM (SELECT logged_at FROM kept_changes LIMIT 100000) l;
    $$;

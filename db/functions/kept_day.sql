-- The function public.kept_day, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_day(at timestamp with time zone, zone text) ──
CREATE OR REPLACE FUNCTION public.kept_day(at timestamp with time zone, zone text)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((at AT TIME ZONE zone))::date;

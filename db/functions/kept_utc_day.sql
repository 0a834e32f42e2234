-- The function public.kept_utc_day, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_utc_day(t timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_utc_day(t timestamp with time zone)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((t AT TIME ZONE 'UTC'::text))::date;

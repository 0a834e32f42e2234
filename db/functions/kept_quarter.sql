-- The function public.kept_quarter, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_quarter(t timestamp with time zone) ──
CREATE OR REPLACE FUNCTION public.kept_quarter(t timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN date_bin('00:15:00'::interval, t, '2000-01-01 00:00:00+00'::timestamp with time zone);

-- The function public.kept_days, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_days(from_day date, until_day date) ──
CREATE OR REPLACE FUNCTION public.kept_days(from_day date, until_day date)
 RETURNS daterange
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN ((until_day IS NULL) OR (from_day < until_day)) THEN daterange(from_day, until_day) ELSE NULL::daterange END;

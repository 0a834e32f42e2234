-- The function public.rider_name_bigrams, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_name_bigrams(key text) ──
CREATE OR REPLACE FUNCTION public.rider_name_bigrams(key text)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
RETURN ARRAY(SELECT DISTINCT substr(w.w, i.i, 2) AS substr FROM regexp_split_to_table(rider_name_bigrams.key, ' '::text) w(w), LATERAL generate_series(1, (length(w.w) - 1)) i(i));

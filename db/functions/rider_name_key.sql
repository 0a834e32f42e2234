-- The function public.rider_name_key, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_name_key(text) ──
CREATE OR REPLACE FUNCTION public.rider_name_key(text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
RETURN lower(regexp_replace(unaccent('unaccent'::regdictionary, $1), '\s+'::text, ' '::text, 'g'::text));

-- The function public.kept_rider_name_grams_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rider_name_grams_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rider_name_grams_rebuild()
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO '$user', 'public'
BEGIN ATOMIC
 DELETE FROM kept_rider_name_grams;
 INSERT INTO kept_rider_name_grams (gram, name, rider_id, name_key, company_id)  SELECT kept_rider_name_gram_docs.gram,
             kept_rider_name_gram_docs.name,
             kept_rider_name_gram_docs.rider_id,
             kept_rider_name_gram_docs.name_key,
             kept_rider_name_gram_docs.company_id
            FROM kept_rider_name_gram_docs;
 DELETE FROM kept_rider_name_gram_counts;
 INSERT INTO kept_rider_name_gram_counts (gram, riders)  SELECT kept_rider_name_gram_count_docs.gram,
             kept_rider_name_gram_count_docs.riders
            FROM kept_rider_name_gram_count_docs;
END;

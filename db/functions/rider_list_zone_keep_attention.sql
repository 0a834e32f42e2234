-- The function public.rider_list_zone_keep_attention, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_list_zone_keep_attention() ──
CREATE OR REPLACE FUNCTION public.rider_list_zone_keep_attention() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_assignment_days IN EXCLUSIVE MODE;
      DELETE FROM kept_assignment_days;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      RETURN NULL;
    END $$;

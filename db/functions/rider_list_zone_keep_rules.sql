-- The function public.rider_list_zone_keep_rules, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_list_zone_keep_rules() ──
CREATE OR REPLACE FUNCTION public.rider_list_zone_keep_rules() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      PERFORM kept_rules_rebuild();
      RETURN NULL;
    END $$;

-- The function public.rider_list_set_zone, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_list_set_zone(new_zone text) ──
CREATE OR REPLACE FUNCTION public.rider_list_set_zone(new_zone text) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      PERFORM now() AT TIME ZONE new_zone; -- an unknown zone fails here, before anything changes
      UPDATE rider_list_zone SET zone = new_zone;
      PERFORM rider_list_entries_rebuild();
    END $$;

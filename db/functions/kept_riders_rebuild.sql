-- The function public.kept_riders_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_riders_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_riders_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_riders, kept_rider_held IN EXCLUSIVE MODE;
      DELETE FROM kept_riders;
      INSERT INTO kept_riders SELECT rider_id, company_id, active_items, returned_items FROM kept_rider_docs;
      DELETE FROM kept_rider_held;
      INSERT INTO kept_rider_held SELECT * FROM kept_rider_held_docs;
    END $$;

-- The function public.rider_list_blocks_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_list_blocks_rebuild() ──
CREATE OR REPLACE FUNCTION public.rider_list_blocks_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE rider_list_blocks IN EXCLUSIVE MODE;
      PERFORM rider_list_blocks_rebuild_unlocked();
    END $$;

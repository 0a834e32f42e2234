-- The function public.patrol_check_questioners_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.patrol_check_questioners_rebuild() ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_rebuild() RETURNS void LANGUAGE plpgsql
AS $$
    BEGIN
      LOCK TABLE patrol_check_questioners IN EXCLUSIVE MODE;
      PERFORM patrol_check_questioners_rebuild_unlocked();
    END $$;

-- The function public.patrol_check_questioners_rebuild_unlocked, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.patrol_check_questioners_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_rebuild_unlocked() RETURNS void LANGUAGE sql
AS $$
      DELETE FROM patrol_check_questioners;
      INSERT INTO patrol_check_questioners (check_id, doc) SELECT check_id, doc FROM patrol_check_questioner_docs;
    $$;

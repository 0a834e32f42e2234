-- The function public.patrol_check_questioners_refresh_unlocked, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.patrol_check_questioners_refresh_unlocked(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.patrol_check_questioners_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM patrol_check_questioners WHERE check_id = ANY (ids);
      INSERT INTO patrol_check_questioners (check_id, doc)
        SELECT check_id, doc FROM patrol_check_questioner_docs WHERE check_id = ANY (ids);
    $$;

-- The function public.rider_list_entries_refresh_unlocked, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.rider_list_entries_refresh_unlocked(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.rider_list_entries_refresh_unlocked(ids bigint[]) RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      DELETE FROM rider_list_entries WHERE rider_id = ANY (ids);
      INSERT INTO rider_list_entries (rider_id, all_entry, active_entry, returned_entry)
        SELECT rider_id, all_entry, active_entry, returned_entry FROM rider_list_entry_docs WHERE rider_id = ANY (ids);
    $$;

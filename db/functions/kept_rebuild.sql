-- The function public.kept_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET kept.applying = on
AS $$
    BEGIN
      DELETE FROM kept_changes WHERE kind NOT IN ('q', 'x');
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();
      PERFORM kept_rules_rebuild();
      PERFORM kept_rider_name_grams_rebuild();
      PERFORM kept_counts_rebuild();
    END $$;

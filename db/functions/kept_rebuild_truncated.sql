-- The function public.kept_rebuild_truncated, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rebuild_truncated(emptied text[]) ──
CREATE OR REPLACE FUNCTION public.kept_rebuild_truncated(emptied text[]) RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET kept.applying = on
AS $$
    DECLARE
      reads_ text[];
    BEGIN
      reads_ := kept_view_reads('kept_rider_docs') || kept_view_reads('kept_rider_held_docs')
             || kept_view_reads('kept_held_item_docs') || kept_view_reads('kept_company_rider_docs')
             || kept_view_reads('rider_list_block_counts');
      IF reads_ && emptied THEN
        PERFORM riders_recount_items();
        PERFORM kept_riders_rebuild();
        PERFORM rider_list_blocks_rebuild();
        PERFORM kept_refill('kept_held_items', 'kept_held_item_docs');
        PERFORM kept_refill('kept_company_riders', 'kept_company_rider_docs');
        emptied := emptied || '{kept_riders,kept_rider_held,kept_held_items,kept_company_riders,rider_list_blocks}';
      END IF;
      IF kept_view_reads('rider_list_entry_docs') && emptied THEN
        IF NOT kept_emptied('rider_list_entries', 'rider_list_entry_docs') THEN PERFORM rider_list_entries_rebuild(); END IF;
        emptied := emptied || '{rider_list_entries}';
      END IF;
      IF kept_view_reads('patrol_check_questioner_docs') && emptied THEN
        IF NOT kept_emptied('patrol_check_questioners', 'patrol_check_questioner_docs') THEN
          PERFORM patrol_check_questioners_rebuild();
        END IF;
        emptied := emptied || '{patrol_check_questioners}';
      END IF;
      IF kept_view_reads('kept_check_gap_docs') && emptied THEN
        PERFORM kept_refill('kept_check_gaps', 'kept_check_gap_docs');
        emptied := emptied || '{kept_check_gaps}';
      END IF;
      IF kept_view_reads('kept_assignment_day_docs') && emptied THEN
        PERFORM kept_refill('kept_assignment_days', 'kept_assignment_day_docs');
        emptied := emptied || '{kept_assignment_days}';
      END IF;
      IF (kept_view_reads('kept_rule_rider_docs') || kept_view_reads('kept_rule_day_docs')) && emptied THEN
        PERFORM kept_rules_rebuild();
        emptied := emptied || '{kept_rule_riders,kept_rule_days}';
      END IF;
      IF (kept_view_reads('kept_rider_name_gram_docs') || kept_view_reads('kept_rider_name_gram_count_docs')) && emptied THEN
        PERFORM kept_rider_name_grams_rebuild();
        emptied := emptied || '{kept_rider_name_grams,kept_rider_name_gram_counts}';
      END IF;
      IF (kept_view_reads('kept_check_quarter_docs') || kept_view_reads('kept_exchange_quarter_docs')
          || kept_view_reads('kept_exchange_day_docs')) && emptied THEN
        PERFORM kept_counts_rebuild();
        RETURN true;
      END IF;
      RETURN false;
    END $$;

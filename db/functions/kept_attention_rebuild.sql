-- The function public.kept_attention_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_attention_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_attention_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_check_gaps, kept_assignment_days, kept_check_quarters, kept_exchange_quarters, kept_exchange_days, kept_held_items, kept_company_riders IN EXCLUSIVE MODE;
      PERFORM kept_attention_rebuild_unlocked();
    END $$;

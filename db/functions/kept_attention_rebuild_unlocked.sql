-- The function public.kept_attention_rebuild_unlocked, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_attention_rebuild_unlocked() ──
CREATE OR REPLACE FUNCTION public.kept_attention_rebuild_unlocked() RETURNS void LANGUAGE sql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE of the tables it reads (and of these).
      DELETE FROM kept_check_gaps; DELETE FROM kept_assignment_days; DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters; DELETE FROM kept_exchange_days; DELETE FROM kept_held_items; DELETE FROM kept_company_riders;
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
      INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs;
      INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs;
      INSERT INTO kept_held_items SELECT * FROM kept_held_item_docs;
      INSERT INTO kept_company_riders SELECT * FROM kept_company_rider_docs;
    $$;

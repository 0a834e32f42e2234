-- The function public.kept_counts_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_counts_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_counts_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_check_quarters, kept_exchange_quarters, kept_exchange_days IN EXCLUSIVE MODE;
      DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters;
      DELETE FROM kept_exchange_days;
      WITH gone AS (DELETE FROM kept_changes WHERE kind IN ('q', 'x')),
      xq AS (INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs),
      xd AS (INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs)
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
    END $$;

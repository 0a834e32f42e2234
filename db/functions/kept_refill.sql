-- The function public.kept_refill, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_refill(kept regclass, docs regclass) ──
CREATE OR REPLACE FUNCTION public.kept_refill(kept regclass, docs regclass) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF kept_emptied(kept, docs) THEN RETURN; END IF;
      EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', kept);
      EXECUTE format('DELETE FROM %s', kept);
      EXECUTE format('INSERT INTO %s SELECT * FROM %s', kept, docs);
    END $$;

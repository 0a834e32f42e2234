-- The function public.kept_emptied, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_emptied(kept regclass, docs regclass) ──
CREATE OR REPLACE FUNCTION public.kept_emptied(kept regclass, docs regclass) RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      found boolean;
    BEGIN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s)', docs) INTO found;
      IF found THEN RETURN false; END IF;
      BEGIN
        EXECUTE format('TRUNCATE %s', kept);
      EXCEPTION WHEN lock_not_available THEN
        EXECUTE format('DELETE FROM %s', kept);
      END;
      RETURN true;
    END $$;

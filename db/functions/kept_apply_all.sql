-- The function public.kept_apply_all, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_apply_all() ──
CREATE OR REPLACE FUNCTION public.kept_apply_all() RETURNS bigint LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      total bigint := 0;
      taken integer;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('kept_apply', 0));
      LOOP
        taken := kept_apply(10000);
        EXIT WHEN taken <= 0;
        total := total + taken;
      END LOOP;
      RETURN total;
    END $$;

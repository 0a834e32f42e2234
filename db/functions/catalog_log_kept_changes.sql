-- The function public.catalog_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.catalog_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

-- The function public.truncate_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.truncate_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, tag) VALUES ('T', TG_TABLE_NAME);
      RETURN NULL;
    END $$;

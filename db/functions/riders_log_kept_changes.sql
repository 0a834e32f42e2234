-- The function public.riders_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.riders_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_LEVEL = 'ROW' THEN
        IF (NEW.id, NEW.company_id, NEW.country_id) = (OLD.id, OLD.company_id, OLD.country_id) THEN
          INSERT INTO kept_changes (kind, id) VALUES ('N', OLD.id);
          RETURN NULL;
        END IF;
        INSERT INTO kept_changes (kind, id) VALUES ('r', OLD.id);
        IF NEW.id <> OLD.id THEN INSERT INTO kept_changes (kind, id) VALUES ('r', NEW.id); END IF;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM new_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

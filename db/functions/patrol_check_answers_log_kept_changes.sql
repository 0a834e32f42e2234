-- The function public.patrol_check_answers_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.patrol_check_answers_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

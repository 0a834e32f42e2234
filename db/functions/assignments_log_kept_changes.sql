-- The function public.assignments_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.assignments_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id)
          SELECT 'h', rider_id FROM new_rows UNION SELECT 'h', rider_id FROM old_rows
          UNION
          SELECT 'k', n.id FROM new_rows n LEFT JOIN old_rows o ON o.id = n.id
           WHERE (o.rider_id, o.product_id, o.variation_id) IS DISTINCT FROM (n.rider_id, n.product_id, n.variation_id);
      END IF;
      RETURN NULL;
    END $$;

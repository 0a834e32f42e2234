-- The function public.product_exchanges_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.product_exchanges_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, count(*) FROM new_rows GROUP BY 2, 3, 4;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, -count(*) FROM old_rows GROUP BY 2, 3, 4;
      ELSE
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, bucket, replacement_type, sum(sign)::int
            FROM (SELECT company_id, kept_quarter(exchanged_at) AS bucket, replacement_type, 1 AS sign FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(exchanged_at), replacement_type, -1 FROM old_rows) d
           GROUP BY 2, 3, 4 HAVING sum(sign) <> 0;
      END IF;
      RETURN NULL;
    END $$;

-- The function public.patrol_checks_log_kept_changes, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.patrol_checks_log_kept_changes() ──
CREATE OR REPLACE FUNCTION public.patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), count(*), count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM new_rows GROUP BY 2, 3;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM old_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), -count(*), -count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM old_rows GROUP BY 2, 3;
      ELSE
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows UNION SELECT 'g', rider_id, NULL, NULL, NULL FROM old_rows
          UNION ALL
          SELECT 'q', company_id, bucket, sum(sign)::int, sum(sign * passed)::int
            FROM (SELECT company_id, kept_quarter(checked_at) AS bucket, 1 AS sign, (id_valid AND plate_valid AND sticker_valid)::int AS passed FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(checked_at), -1, (id_valid AND plate_valid AND sticker_valid)::int FROM old_rows) d
           GROUP BY 2, 3 HAVING (sum(sign), sum(sign * passed)) <> (0, 0);
      END IF;
      RETURN NULL;
    END $$;

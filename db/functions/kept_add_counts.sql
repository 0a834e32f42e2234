-- The function public.kept_add_counts, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_add_counts(deltas kept_changes[]) ──
CREATE OR REPLACE FUNCTION public.kept_add_counts(deltas kept_changes[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    DECLARE
      check_zeros timestamptz[];
      exchange_zeros timestamptz[];
      day_zeros date[];
    BEGIN
      WITH d AS (SELECT * FROM unnest(deltas)), cq AS (
        INSERT INTO kept_check_quarters AS k (bucket, company_id, checks, passed)
          SELECT at, id, sum(n), sum(m) FROM d WHERE kind = 'q' GROUP BY 1, 2
          ON CONFLICT (bucket, company_id) DO UPDATE SET checks = k.checks + EXCLUDED.checks, passed = k.passed + EXCLUDED.passed
          RETURNING bucket, (checks, passed) = (0, 0) AS zero
      ), xq AS (
        INSERT INTO kept_exchange_quarters AS k (bucket, company_id, replacement_type, exchanges)
          SELECT at, id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (bucket, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING bucket, exchanges = 0 AS zero
      ), xd AS (
        INSERT INTO kept_exchange_days AS k (day, company_id, replacement_type, exchanges)
          SELECT kept_utc_day(at), id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (day, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING day, exchanges = 0 AS zero
      )
      SELECT (SELECT array_agg(DISTINCT bucket) FROM cq WHERE zero), (SELECT array_agg(DISTINCT bucket) FROM xq WHERE zero),
             (SELECT array_agg(DISTINCT day) FROM xd WHERE zero)
        INTO check_zeros, exchange_zeros, day_zeros;
      IF check_zeros IS NOT NULL THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_zeros) AND checks = 0 AND passed = 0;
      END IF;
      IF exchange_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_zeros) AND exchanges = 0;
      END IF;
      IF day_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_days WHERE day = ANY (day_zeros) AND exchanges = 0;
      END IF;
    END $$;

// Migration 029's log side: the oldest writer still running, whether the log is full, and the log triggers' functions.

/** The log triggers' guard: nothing while the applier writes, nothing once the log is full (see the migration's opening comment). */
const guard = `IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;`;

/** kept_oldest_writer(), kept_logging() and the log triggers' functions, writing what each statement adds to the counts. */
export const LOG_FUNCTIONS = `
    -- The oldest transaction of this database still running, or this one's when none other is (a long
    -- transaction elsewhere on the server does not hold it back). Transaction ids in pg_locks have 32
    -- bits: made whole with this one's epoch. Prepared transactions (no session) count too.
    CREATE OR REPLACE FUNCTION kept_oldest_writer() RETURNS xid8 LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      mine bigint := pg_current_xact_id()::text::bigint;
      oldest bigint;
    BEGIN
      SELECT min(l.transactionid::text::bigint) INTO oldest
        FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid IS DISTINCT FROM pg_backend_pid()
         AND (l.pid IS NULL OR a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      IF oldest IS NULL THEN RETURN mine::text::xid8; END IF;
      RETURN ((mine >> 32 << 32) + oldest - CASE WHEN oldest > (mine & 4294967295) THEN 4294967296 ELSE 0 END)::text::xid8;
    END $$;

    -- Whether a writer logs: not once the log is full. The first writer to find it full says so, once.
    CREATE OR REPLACE FUNCTION kept_logging() RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      s kept_log_state;
    BEGIN
      SELECT * INTO s FROM kept_log_state;
      IF s.overflowed THEN RETURN false; END IF;
      -- The log's rows as the statistics count them (about a second behind): no scan, no lock.
      IF pg_stat_get_live_tuples('kept_changes'::regclass) <= s.max_rows THEN RETURN true; END IF;
      UPDATE kept_log_state SET overflowed = true WHERE NOT overflowed;
      RETURN false;
    END $$;

    CREATE OR REPLACE FUNCTION riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
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

    CREATE OR REPLACE FUNCTION assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
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

    -- A check's rider ('g': its gaps) and what it adds to its quarter's counts ('q').
    CREATE OR REPLACE FUNCTION patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
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

    -- An exchange's quarter, 3PL and replacement type, and how many it adds there ('x').
    CREATE OR REPLACE FUNCTION product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
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

    CREATE OR REPLACE FUNCTION patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind) VALUES ('T');
      RETURN NULL;
    END $$;`;

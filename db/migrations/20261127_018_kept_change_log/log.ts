// Migration 018's log triggers' functions: what each writer's statement appends to kept_changes.

// The statement triggers' bodies: skip what kept_apply() and kept_rebuild() write themselves (while
// they run, their SET clause says so; it is undone when they return).
const applying = `IF current_setting('kept.applying', true) = 'on' THEN RETURN NULL; END IF;`;

/** The functions of the log triggers (./triggers.ts), one per table, and the catalog's and TRUNCATE's. */
export const LOG_FUNCTIONS = `
    -- The log triggers ------------------------------------------------------------------------------
    CREATE FUNCTION riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_LEVEL = 'ROW' THEN
        INSERT INTO kept_changes (kind, id) VALUES ('r', OLD.id);
        IF NEW.id <> OLD.id THEN INSERT INTO kept_changes (kind, id) VALUES ('r', NEW.id); END IF;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM new_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
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

    CREATE FUNCTION patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz FROM new_rows UNION ALL SELECT DISTINCT 'q', NULL::bigint, kept_quarter(checked_at) FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz FROM old_rows UNION ALL SELECT DISTINCT 'q', NULL::bigint, kept_quarter(checked_at) FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id, at)
          SELECT 'g', rider_id, NULL::timestamptz FROM new_rows UNION SELECT 'g', rider_id, NULL FROM old_rows
          UNION SELECT 'q', NULL, kept_quarter(checked_at) FROM new_rows UNION SELECT 'q', NULL, kept_quarter(checked_at) FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${applying}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, at) SELECT DISTINCT 'x', kept_quarter(exchanged_at) FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, at) SELECT DISTINCT 'x', kept_quarter(exchanged_at) FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, at)
          SELECT 'x', kept_quarter(exchanged_at) FROM new_rows UNION SELECT 'x', kept_quarter(exchanged_at) FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

    CREATE FUNCTION truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO kept_changes (kind) VALUES ('T');
      RETURN NULL;
    END $$;`;

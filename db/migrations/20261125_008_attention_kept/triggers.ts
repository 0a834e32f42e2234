// Migration 008's rebuild and triggers: everything at once from the views, and the triggers that keep each table.

/** kept_attention_rebuild() and the TRUNCATE triggers; the triggers of each table the kept data reads, and of rider_list_zone. */
export const TRIGGERS = `
    -- Everything at once, from the views: for bulk loaders (which disable the row triggers below while
    -- they load, as the demo seed does) and after a TRUNCATE of any table the views read.
    CREATE FUNCTION kept_attention_rebuild() RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE of the tables it reads (and of these).
      DELETE FROM kept_check_gaps; DELETE FROM kept_assignment_days; DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters; DELETE FROM kept_exchange_days; DELETE FROM kept_held_items; DELETE FROM kept_company_riders;
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
      INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs;
      INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs;
      INSERT INTO kept_held_items SELECT * FROM kept_held_item_docs;
      INSERT INTO kept_company_riders SELECT * FROM kept_company_rider_docs;
    $$;

    CREATE FUNCTION kept_attention_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM kept_attention_rebuild();
      RETURN NULL;
    END $$;
    CREATE TRIGGER riders_truncate_attention AFTER TRUNCATE ON riders
      FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated();
    CREATE TRIGGER assignments_truncate_attention AFTER TRUNCATE ON assignments
      FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated();
    CREATE TRIGGER patrol_checks_truncate_attention AFTER TRUNCATE ON patrol_checks
      FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated();
    CREATE TRIGGER product_exchanges_truncate_attention AFTER TRUNCATE ON product_exchanges
      FOR EACH STATEMENT EXECUTE FUNCTION kept_attention_truncated();

    -- patrol_checks: the gaps of the riders touched, the quarters of the moments touched. (Each branch
    -- reads only the transition tables its trigger names.)
    CREATE FUNCTION patrol_checks_keep_attention() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM kept_check_gaps_refresh(ARRAY(SELECT DISTINCT rider_id FROM new_rows));
        PERFORM kept_check_quarters_refresh(ARRAY(SELECT checked_at FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM kept_check_gaps_refresh(ARRAY(SELECT DISTINCT rider_id FROM old_rows));
        PERFORM kept_check_quarters_refresh(ARRAY(SELECT checked_at FROM old_rows));
      ELSE
        PERFORM kept_check_gaps_refresh(ARRAY(SELECT rider_id FROM new_rows UNION SELECT rider_id FROM old_rows));
        PERFORM kept_check_quarters_refresh(ARRAY(SELECT checked_at FROM new_rows UNION SELECT checked_at FROM old_rows));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER patrol_checks_insert_attention AFTER INSERT ON patrol_checks REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention();
    CREATE TRIGGER patrol_checks_update_attention AFTER UPDATE ON patrol_checks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention();
    CREATE TRIGGER patrol_checks_delete_attention AFTER DELETE ON patrol_checks REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_keep_attention();

    -- product_exchanges: the quarters and days of the moments touched.
    CREATE FUNCTION product_exchanges_keep_attention() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM kept_exchange_counts_refresh(ARRAY(SELECT exchanged_at FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM kept_exchange_counts_refresh(ARRAY(SELECT exchanged_at FROM old_rows));
      ELSE
        PERFORM kept_exchange_counts_refresh(ARRAY(SELECT exchanged_at FROM new_rows UNION SELECT exchanged_at FROM old_rows));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER product_exchanges_insert_attention AFTER INSERT ON product_exchanges REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention();
    CREATE TRIGGER product_exchanges_update_attention AFTER UPDATE ON product_exchanges REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention();
    CREATE TRIGGER product_exchanges_delete_attention AFTER DELETE ON product_exchanges REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_keep_attention();

    -- assignments, per row: its exchange day; the held items per 3PL and product (the difference it
    -- makes); and, when it moves to another rider, the exchange counts of its exchanges.
    CREATE FUNCTION assignments_keep_attention() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        PERFORM kept_held_items_add((SELECT company_id FROM riders WHERE id = OLD.rider_id), OLD.product_id, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        PERFORM kept_held_items_add((SELECT company_id FROM riders WHERE id = NEW.rider_id), NEW.product_id, 1);
      END IF;
      IF TG_OP = 'DELETE' THEN
        PERFORM kept_assignment_days_refresh(ARRAY[OLD.id]);
      ELSE
        PERFORM kept_assignment_days_refresh(CASE WHEN TG_OP = 'UPDATE' THEN ARRAY[OLD.id, NEW.id] ELSE ARRAY[NEW.id] END);
      END IF;
      IF TG_OP = 'UPDATE' AND OLD.rider_id <> NEW.rider_id THEN
        PERFORM kept_exchange_counts_refresh(ARRAY(SELECT exchanged_at FROM product_exchanges WHERE old_assignment_id = NEW.id));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER assignments_attention
      AFTER INSERT OR DELETE OR UPDATE OF id, rider_id, product_id, assigned_at, deleted_at ON assignments
      FOR EACH ROW EXECUTE FUNCTION assignments_keep_attention();

    -- products: a changed exchange period moves the exchange day of every item of the product.
    CREATE FUNCTION products_keep_attention() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM kept_assignment_days_refresh(ARRAY(SELECT id FROM assignments WHERE product_id = NEW.id));
      RETURN NULL;
    END $$;
    CREATE TRIGGER products_attention
      AFTER UPDATE OF exchange_after_days ON products
      FOR EACH ROW WHEN (OLD.exchange_after_days IS DISTINCT FROM NEW.exchange_after_days) EXECUTE FUNCTION products_keep_attention();

    -- riders, per row: the 3PL's rider counts (the difference it makes); a new or removed rider's gaps;
    -- and a rider moving to another 3PL takes its checks, exchanges and held items along.
    CREATE FUNCTION riders_keep_attention() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM kept_company_riders_add(OLD.company_id, -1, -(OLD.active_items > 0)::int, -OLD.active_items);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM kept_company_riders_add(NEW.company_id, 1, (NEW.active_items > 0)::int, NEW.active_items);
      END IF;
      IF TG_OP = 'INSERT' THEN
        PERFORM kept_check_gaps_refresh(ARRAY[NEW.id]);
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM kept_check_gaps_refresh(ARRAY[OLD.id]);
      ELSIF OLD.id <> NEW.id THEN
        PERFORM kept_check_gaps_refresh(ARRAY[OLD.id, NEW.id]);
      END IF;
      IF TG_OP = 'UPDATE' AND OLD.company_id <> NEW.company_id THEN
        PERFORM kept_check_quarters_refresh(ARRAY(SELECT checked_at FROM patrol_checks WHERE rider_id = NEW.id));
        PERFORM kept_exchange_counts_refresh(ARRAY(
          SELECT e.exchanged_at FROM product_exchanges e JOIN assignments a ON a.id = e.old_assignment_id WHERE a.rider_id = NEW.id));
        PERFORM kept_held_items_add(OLD.company_id, h.product_id, -h.n), kept_held_items_add(NEW.company_id, h.product_id, h.n)
           FROM (SELECT product_id, count(*)::int AS n FROM assignments WHERE rider_id = NEW.id AND deleted_at IS NULL GROUP BY 1) h;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER riders_attention
      AFTER INSERT OR DELETE OR UPDATE OF id, company_id, active_items ON riders
      FOR EACH ROW EXECUTE FUNCTION riders_keep_attention();

    -- The zone of the exchange days is the kept rider list's (migration 006): a new zone rewrites them too.
    CREATE FUNCTION rider_list_zone_keep_attention() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      DELETE FROM kept_assignment_days;
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs;
      RETURN NULL;
    END $$;
    CREATE TRIGGER rider_list_zone_attention AFTER UPDATE ON rider_list_zone
      FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_attention();`;

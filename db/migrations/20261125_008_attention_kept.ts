import type { Knex } from 'knex';

// What the overview and "Needs attention" read instead of computing it from every check, item and
// exchange on each visit, kept by triggers. At 100,000 riders the two pages took 1.7 s and 2.4 s;
// their statements now read index ranges whose size does not follow the fleet (see docs/OPERATIONS.md,
// "Kept attention and overview data").
//
// 1. kept_check_gaps: per rider, each stretch of time between two of its patrol checks, from a check
//    (or from -infinity before the first) to the next one (NULL: none yet), with how many failed checks
//    in a row end at the check that opens it. "Failing at the end of day T" is the gap that holds T's
//    end opened by a check of a long enough streak; "not checked lately" is a gap that covers the whole
//    window before T's end. Both are GiST range look-ups, at any as-of day and any threshold.
// 2. kept_assignment_days: per assignment, its exchange day (assigned + the product's days, in the zone
//    of rider_list_zone) and its return; "past its exchange day at T" is a range look-up too.
// 3. kept_check_quarters, kept_exchange_quarters, kept_exchange_days: checks (and passed ones) and
//    exchanges per 3PL of the rider and per quarter of an hour (every time zone's days start on one),
//    and exchanges per UTC day as well; a window's count is a sum over a bounded number of rows.
// 4. kept_held_items and kept_company_riders: items held per 3PL and product; riders, riders holding
//    and items held per 3PL.
//
// Each table has a view that is its one definition (kept_*_docs); the triggers write what the view
// returns for the keys a change touches (or add the change's difference, for the two counters of 4),
// the bulk rebuild writes the whole view, and the tests compare table and view after each kind of
// change. The functions run as the owner, so a system that writes the data needs no grant on them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION kept_quarter(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN date_bin('15 minutes', t, timestamptz '2000-01-01 00:00:00+00');
    CREATE FUNCTION kept_utc_day(t timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN (t AT TIME ZONE 'UTC')::date;

    -- 1. Gaps between checks ------------------------------------------------------------------------
    CREATE TABLE kept_check_gaps (
      rider_id     bigint      NOT NULL,
      check_id     bigint,
      from_at      timestamptz NOT NULL,
      until_at     timestamptz,
      streak       integer     NOT NULL CHECK (streak >= 0),
      streak_start timestamptz
    );
    COMMENT ON TABLE kept_check_gaps IS 'Per rider, the time from each patrol check (or -infinity) to the next, with the failed checks in a row ending at it; kept by triggers.';
    CREATE INDEX kept_check_gaps_rider_idx ON kept_check_gaps (rider_id);
    -- (from_at, until_at]: the check is before the moment, the next one at or after it.
    -- With the columns the rules count by, so counting reads the index alone.
    CREATE INDEX kept_check_gaps_span_idx ON kept_check_gaps USING gist (tstzrange(from_at, until_at, '(]')) INCLUDE (rider_id);
    CREATE INDEX kept_check_gaps_failing_idx ON kept_check_gaps USING gist (tstzrange(from_at, until_at, '(]')) INCLUDE (rider_id, streak)
      WHERE streak > 0;

    CREATE VIEW kept_check_gap_docs AS
      WITH marked AS (
        SELECT pc.rider_id, pc.id, pc.checked_at,
               NOT (pc.id_valid AND pc.plate_valid AND pc.sticker_valid) AS failed,
               lead(pc.checked_at) OVER (PARTITION BY pc.rider_id ORDER BY pc.checked_at, pc.id) AS next_at,
               sum((pc.id_valid AND pc.plate_valid AND pc.sticker_valid)::int)
                 OVER (PARTITION BY pc.rider_id ORDER BY pc.checked_at, pc.id) AS passes
          FROM patrol_checks pc
      ), streaks AS (
        SELECT m.*,
               count(*) FILTER (WHERE m.failed) OVER (PARTITION BY m.rider_id, m.passes ORDER BY m.checked_at, m.id) AS streak,
               min(m.checked_at) FILTER (WHERE m.failed) OVER (PARTITION BY m.rider_id, m.passes) AS streak_start
          FROM marked m
      )
      SELECT r.id AS rider_id, NULL::bigint AS check_id, '-infinity'::timestamptz AS from_at,
             (SELECT min(pc.checked_at) FROM patrol_checks pc WHERE pc.rider_id = r.id) AS until_at,
             0 AS streak, NULL::timestamptz AS streak_start
        FROM riders r
      UNION ALL
      SELECT s.rider_id, s.id, s.checked_at, s.next_at,
             CASE WHEN s.failed THEN s.streak::int ELSE 0 END,
             CASE WHEN s.failed THEN s.streak_start END
        FROM streaks s;

    CREATE FUNCTION kept_check_gaps_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_check_gaps WHERE rider_id = ANY (ids);
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs WHERE rider_id = ANY (ids);
    $$;

    -- 2. Exchange days ------------------------------------------------------------------------------
    CREATE TABLE kept_assignment_days (
      assignment_id bigint      PRIMARY KEY,
      rider_id      bigint      NOT NULL,
      eligible_at   timestamptz NOT NULL,
      deleted_at    timestamptz
    );
    COMMENT ON TABLE kept_assignment_days IS 'Each assignment''s exchange day (in the zone of rider_list_zone) and return; kept by triggers.';
    -- Items that were ever past their exchange day while held, by that day: "past it at the end of T"
    -- reads them in order (longest overdue first) up to T's start and keeps those held at T's end.
    CREATE INDEX kept_assignment_days_overdue_idx ON kept_assignment_days (eligible_at, assignment_id) INCLUDE (deleted_at, rider_id)
      WHERE deleted_at IS NULL OR deleted_at > eligible_at;

    CREATE VIEW kept_assignment_day_docs AS
      SELECT a.id AS assignment_id, a.rider_id,
             ((a.assigned_at AT TIME ZONE z.zone) + p.exchange_after_days * interval '1 day') AT TIME ZONE z.zone AS eligible_at,
             a.deleted_at
        FROM assignments a
        JOIN products p ON p.id = a.product_id
        CROSS JOIN rider_list_zone z;

    CREATE FUNCTION kept_assignment_days_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_assignment_days WHERE assignment_id = ANY (ids);
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs WHERE assignment_id = ANY (ids);
    $$;

    -- 3. Checks and exchanges per 3PL and quarter of an hour (and exchanges per UTC day) ---------------
    CREATE TABLE kept_check_quarters (
      bucket     timestamptz NOT NULL,
      company_id bigint      NOT NULL,
      checks     integer     NOT NULL CHECK (checks > 0),
      passed     integer     NOT NULL CHECK (passed >= 0),
      PRIMARY KEY (bucket, company_id)
    );
    CREATE VIEW kept_check_quarter_docs AS
      SELECT kept_quarter(pc.checked_at) AS bucket, r.company_id, count(*)::int AS checks,
             count(*) FILTER (WHERE pc.id_valid AND pc.plate_valid AND pc.sticker_valid)::int AS passed
        FROM patrol_checks pc JOIN riders r ON r.id = pc.rider_id
       GROUP BY 1, 2;

    CREATE TABLE kept_exchange_quarters (
      bucket           timestamptz NOT NULL,
      company_id       bigint      NOT NULL,
      replacement_type text        NOT NULL,
      exchanges        integer     NOT NULL CHECK (exchanges > 0),
      PRIMARY KEY (bucket, company_id, replacement_type)
    );
    CREATE VIEW kept_exchange_quarter_docs AS
      SELECT kept_quarter(e.exchanged_at) AS bucket, r.company_id, e.replacement_type, count(*)::int AS exchanges
        FROM product_exchanges e JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
       GROUP BY 1, 2, 3;

    CREATE TABLE kept_exchange_days (
      day              date   NOT NULL,
      company_id       bigint NOT NULL,
      replacement_type text   NOT NULL,
      exchanges        integer NOT NULL CHECK (exchanges > 0),
      PRIMARY KEY (day, company_id, replacement_type)
    );
    CREATE VIEW kept_exchange_day_docs AS
      SELECT kept_utc_day(e.exchanged_at) AS day, r.company_id, e.replacement_type, count(*)::int AS exchanges
        FROM product_exchanges e JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
       GROUP BY 1, 2, 3;

    -- The rows of these moments' quarters and days, written afresh from the views. Each view's rows
    -- for one quarter or day are read through the date indexes of patrol_checks and product_exchanges.
    CREATE FUNCTION kept_check_quarters_refresh(moments timestamptz[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE b timestamptz;
    BEGIN
      FOR b IN SELECT DISTINCT kept_quarter(m) FROM unnest(moments) m WHERE m IS NOT NULL LOOP
        DELETE FROM kept_check_quarters WHERE bucket = b;
        INSERT INTO kept_check_quarters
          SELECT b, r.company_id, count(*)::int, count(*) FILTER (WHERE pc.id_valid AND pc.plate_valid AND pc.sticker_valid)::int
            FROM patrol_checks pc JOIN riders r ON r.id = pc.rider_id
           WHERE pc.checked_at >= b AND pc.checked_at < b + interval '15 minutes'
           GROUP BY r.company_id;
      END LOOP;
    END $$;

    CREATE FUNCTION kept_exchange_counts_refresh(moments timestamptz[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE b timestamptz; d date;
    BEGIN
      FOR b IN SELECT DISTINCT kept_quarter(m) FROM unnest(moments) m WHERE m IS NOT NULL LOOP
        DELETE FROM kept_exchange_quarters WHERE bucket = b;
        INSERT INTO kept_exchange_quarters
          SELECT b, r.company_id, e.replacement_type, count(*)::int
            FROM product_exchanges e JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
           WHERE e.exchanged_at >= b AND e.exchanged_at < b + interval '15 minutes'
           GROUP BY r.company_id, e.replacement_type;
      END LOOP;
      FOR d IN SELECT DISTINCT kept_utc_day(m) FROM unnest(moments) m WHERE m IS NOT NULL LOOP
        DELETE FROM kept_exchange_days WHERE day = d;
        INSERT INTO kept_exchange_days
          SELECT d, r.company_id, e.replacement_type, count(*)::int
            FROM product_exchanges e JOIN assignments a ON a.id = e.old_assignment_id JOIN riders r ON r.id = a.rider_id
           WHERE e.exchanged_at >= (d::timestamp AT TIME ZONE 'UTC') AND e.exchanged_at < ((d + 1)::timestamp AT TIME ZONE 'UTC')
           GROUP BY r.company_id, e.replacement_type;
      END LOOP;
    END $$;

    -- 4. Held items and riders per 3PL --------------------------------------------------------------
    CREATE TABLE kept_held_items (
      company_id bigint  NOT NULL,
      product_id bigint  NOT NULL,
      items      integer NOT NULL CHECK (items >= 0),
      PRIMARY KEY (company_id, product_id)
    );
    CREATE VIEW kept_held_item_docs AS
      SELECT r.company_id, a.product_id, count(*)::int AS items
        FROM assignments a JOIN riders r ON r.id = a.rider_id
       WHERE a.deleted_at IS NULL
       GROUP BY 1, 2;

    CREATE TABLE kept_company_riders (
      company_id     bigint  PRIMARY KEY,
      riders         integer NOT NULL CHECK (riders >= 0),
      riders_holding integer NOT NULL CHECK (riders_holding >= 0),
      items_held     integer NOT NULL CHECK (items_held >= 0)
    );
    CREATE VIEW kept_company_rider_docs AS
      SELECT company_id, count(*)::int AS riders, count(*) FILTER (WHERE active_items > 0)::int AS riders_holding,
             coalesce(sum(active_items), 0)::int AS items_held
        FROM riders
       GROUP BY company_id;

    CREATE FUNCTION kept_held_items_add(company bigint, product bigint, n integer) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF n = 0 THEN RETURN; END IF;
      INSERT INTO kept_held_items AS k (company_id, product_id, items) VALUES (company, product, greatest(n, 0))
        ON CONFLICT (company_id, product_id) DO UPDATE SET items = k.items + n;
      DELETE FROM kept_held_items WHERE company_id = company AND product_id = product AND items = 0;
    END $$;

    CREATE FUNCTION kept_company_riders_add(company bigint, d_riders integer, d_holding integer, d_items integer) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO kept_company_riders AS k (company_id, riders, riders_holding, items_held)
        VALUES (company, greatest(d_riders, 0), greatest(d_holding, 0), greatest(d_items, 0))
        ON CONFLICT (company_id) DO UPDATE
          SET riders = k.riders + d_riders, riders_holding = k.riders_holding + d_holding, items_held = k.items_held + d_items;
      DELETE FROM kept_company_riders WHERE company_id = company AND riders = 0;
    END $$;

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
      FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_attention();

    SELECT kept_attention_rebuild();
    ANALYZE kept_check_gaps, kept_assignment_days, kept_check_quarters, kept_exchange_quarters, kept_exchange_days,
      kept_held_items, kept_company_riders;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER rider_list_zone_attention ON rider_list_zone;
    DROP TRIGGER riders_attention ON riders;
    DROP TRIGGER products_attention ON products;
    DROP TRIGGER assignments_attention ON assignments;
    DROP TRIGGER product_exchanges_insert_attention ON product_exchanges;
    DROP TRIGGER product_exchanges_update_attention ON product_exchanges;
    DROP TRIGGER product_exchanges_delete_attention ON product_exchanges;
    DROP TRIGGER patrol_checks_insert_attention ON patrol_checks;
    DROP TRIGGER patrol_checks_update_attention ON patrol_checks;
    DROP TRIGGER patrol_checks_delete_attention ON patrol_checks;
    DROP TRIGGER riders_truncate_attention ON riders;
    DROP TRIGGER assignments_truncate_attention ON assignments;
    DROP TRIGGER patrol_checks_truncate_attention ON patrol_checks;
    DROP TRIGGER product_exchanges_truncate_attention ON product_exchanges;
    DROP FUNCTION rider_list_zone_keep_attention(), riders_keep_attention(), products_keep_attention(), assignments_keep_attention(),
      product_exchanges_keep_attention(), patrol_checks_keep_attention(), kept_attention_truncated(), kept_attention_rebuild(),
      kept_company_riders_add(bigint, integer, integer, integer), kept_held_items_add(bigint, bigint, integer),
      kept_exchange_counts_refresh(timestamptz[]), kept_check_quarters_refresh(timestamptz[]),
      kept_assignment_days_refresh(bigint[]), kept_check_gaps_refresh(bigint[]);
    DROP VIEW kept_company_rider_docs, kept_held_item_docs, kept_exchange_day_docs, kept_exchange_quarter_docs,
      kept_check_quarter_docs, kept_assignment_day_docs, kept_check_gap_docs;
    DROP TABLE kept_company_riders, kept_held_items, kept_exchange_days, kept_exchange_quarters, kept_check_quarters,
      kept_assignment_days, kept_check_gaps;
    DROP FUNCTION kept_utc_day(timestamptz), kept_quarter(timestamptz);
  `);
}

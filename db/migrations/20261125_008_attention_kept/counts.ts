// Migration 008's kept counts: checks and exchanges per 3PL and quarter of an hour (and UTC day), held items and riders per 3PL.

/** Sections 3 and 4: the counts' tables, their views, and the functions that write them. */
export const COUNTS = `
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
    END $$;`;

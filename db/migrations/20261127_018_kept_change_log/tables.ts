// Migration 018's tables and views: the log, each rider's part as last applied, and the rider list's entries read per rider.

/** From the log's table to the 3PL read into a new check's or assignment's row. */
export const KEPT_TABLES = `
    CREATE TABLE kept_changes (
      kind text        NOT NULL,
      id   bigint,
      at   timestamptz,
      logged_at timestamptz NOT NULL DEFAULT now()
    );
    -- Appended by writers, taken whole by kept_apply(): vacuumed after every thousand or so.
    ALTER TABLE kept_changes SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0,
      autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_analyze_threshold = 1000,
      autovacuum_analyze_scale_factor = 0);
    COMMENT ON TABLE kept_changes IS 'What writers changed that the kept data shows, until kept_apply() has written it (migration 018).';

    -- How far behind the kept data is: changes waiting (counted up to 100,000), and when the oldest of
    -- them was written (NULL when nothing waits). Any session may read it, on a replica too.
    CREATE FUNCTION kept_freshness(OUT pending bigint, OUT oldest timestamptz) LANGUAGE sql STABLE
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      SELECT count(*), min(logged_at) FROM (SELECT logged_at FROM kept_changes LIMIT 100000) l;
    $$;

    -- Each rider's part in the counts per 3PL, as kept_apply() last wrote them: the counts change by
    -- the difference between this and the rider's part now.
    CREATE TABLE kept_riders (
      rider_id       bigint  PRIMARY KEY,
      company_id     bigint  NOT NULL,
      active_items   integer NOT NULL,
      returned_items integer NOT NULL
    );
    COMMENT ON TABLE kept_riders IS 'Each rider''s 3PL and item counts as last applied to the counts per 3PL; kept by kept_apply().';
    CREATE VIEW kept_rider_docs AS
      SELECT r.id AS rider_id, r.company_id,
             count(a.id) FILTER (WHERE a.deleted_at IS NULL)::int AS active_items,
             count(a.id) FILTER (WHERE a.deleted_at IS NOT NULL)::int AS returned_items
        FROM riders r LEFT JOIN assignments a ON a.rider_id = r.id
       GROUP BY r.id;

    -- Riders whose row changed (another 3PL) since the log began: only their rows' list keys can be
    -- stale (a row written while its rider moved read the old 3PL), so only theirs are checked again.
    CREATE TABLE kept_moved_riders (
      rider_id bigint PRIMARY KEY
    );
    COMMENT ON TABLE kept_moved_riders IS 'Riders whose 3PL or row changed since migration 018: kept_apply() checks their rows'' list keys; kept by kept_apply().';

    CREATE TABLE kept_rider_held (
      rider_id   bigint  NOT NULL,
      product_id bigint  NOT NULL,
      items      integer NOT NULL CHECK (items > 0),
      PRIMARY KEY (rider_id, product_id)
    );
    COMMENT ON TABLE kept_rider_held IS 'Items each rider holds per product, as last applied to kept_held_items; kept by kept_apply().';
    CREATE VIEW kept_rider_held_docs AS
      SELECT rider_id, product_id, count(*)::int AS items FROM assignments WHERE deleted_at IS NULL GROUP BY 1, 2;

    -- The rider list's entries, one rider's read through its own assignments (the view of migration 006
    -- grouped every assignment before it could keep the riders asked for: seconds for one rider).
    CREATE OR REPLACE VIEW rider_list_entry_docs AS
      SELECT r.id AS rider_id,
             concat(h.head, x.all_doc::text, '}') AS all_entry,
             CASE WHEN x.active_doc IS NOT NULL THEN concat(h.head, x.active_doc::text, '}') END AS active_entry,
             CASE WHEN x.returned_doc IS NOT NULL THEN concat(h.head, x.returned_doc::text, '}') END AS returned_entry
        FROM riders r
        JOIN companies c ON c.id = r.company_id
        JOIN countries co ON co.id = r.country_id
        CROSS JOIN LATERAL (
          SELECT json_agg(d.doc ORDER BY a.assigned_at, a.id) AS all_doc,
                 json_agg(d.doc ORDER BY a.assigned_at, a.id) FILTER (WHERE a.deleted_at IS NULL) AS active_doc,
                 json_agg(d.doc ORDER BY a.assigned_at, a.id) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned_doc
            FROM assignments a
            JOIN products p ON p.id = a.product_id
            JOIN product_variations v ON v.id = a.variation_id
            CROSS JOIN rider_list_zone z
            CROSS JOIN LATERAL (SELECT json_build_object(
              'equipment_id', a.product_id,
              'variation_id', a.variation_id,
              'equipment_name', p.name,
              'equipment_variation_name', v.name,
              'assign_date', to_char(a.assigned_at AT TIME ZONE z.zone, 'YYYY-MM-DD HH24:MI:SS'),
              'assign_type', a.assign_type,
              'return_date', to_char(a.deleted_at AT TIME ZONE z.zone, 'YYYY-MM-DD HH24:MI:SS'),
              'active', a.deleted_at IS NULL) AS doc) d
           WHERE a.rider_id = r.id) x
        CROSS JOIN LATERAL (SELECT concat('{"rider_id" : ', coalesce(to_json(r.id::text)::text, 'null'),
                                          ', "3pl_name" : ', coalesce(to_json(c.name)::text, 'null'),
                                          ', "country_code" : ', coalesce(to_json(co.code)::text, 'null'),
                                          ', "products" : ') AS head) h
       WHERE x.all_doc IS NOT NULL;

    -- The one kept thing left in the writer's statement: a new check's or assignment's 3PL, read into
    -- the row. SELECT INTO is a plain query; the assignment of a scalar subquery that migration 011 used
    -- ran the executor for an expression each row: 10,000 rows in one statement cost twice as long.
    CREATE OR REPLACE FUNCTION rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      SELECT r.company_id INTO NEW.company_id FROM riders r WHERE r.id = NEW.rider_id;
      RETURN NEW;
    END $$;`;

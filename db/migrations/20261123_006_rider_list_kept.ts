import type { Knex } from 'knex';

// What the rider equipment list reads instead of computing it on every page, kept by triggers:
//
// 1. rider_list_blocks: per 3PL and per block of 1,024 rider ids, how many riders have any, active
//    and returned equipment (the flags of migration 002's item counts). The total of a page is a sum
//    over a few hundred rows instead of a count over every rider, and a page's first rider is found
//    by walking the blocks' running sums: the last page costs what the first does, instead of
//    skipping every rider before it.
//
// 2. rider_list_entries: per rider, its entry of the list's `data` array (rider_id, 3pl_name,
//    country_code and the products array, for all, still held and returned products), as the JSON
//    text the list sends. Building an entry takes every assignment of the rider with its product and
//    variation names and two formatted dates; stored, a page is 100 index lookups and one
//    string_agg. The dates are formatted in one time zone (rider_list_zone, UTC at first); readers
//    whose session is in another zone build the entries as before. rider_list_set_zone(zone)
//    rebuilds every entry for another zone.
//
// The views rider_list_block_counts and rider_list_entry_docs are the one definition of each; the
// triggers and the bulk rebuilds write what they return, and the tests compare them, and the entries
// with what the service builds itself.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rider_list_blocks (
      company_id    bigint  NOT NULL REFERENCES companies ON DELETE CASCADE,
      block         bigint  NOT NULL,
      with_items    integer NOT NULL DEFAULT 0 CHECK (with_items >= 0),
      with_active   integer NOT NULL DEFAULT 0 CHECK (with_active >= 0),
      with_returned integer NOT NULL DEFAULT 0 CHECK (with_returned >= 0),
      PRIMARY KEY (company_id, block)
    );
    COMMENT ON TABLE rider_list_blocks IS 'Riders with any, active and returned equipment per 3PL and block of 1,024 rider ids (id >> 10); kept by triggers on riders.';

    CREATE VIEW rider_list_block_counts AS
      SELECT company_id, id >> 10 AS block,
             count(*) FILTER (WHERE active_items > 0 OR returned_items > 0)::int AS with_items,
             count(*) FILTER (WHERE active_items > 0)::int AS with_active,
             count(*) FILTER (WHERE returned_items > 0)::int AS with_returned
        FROM riders
       GROUP BY company_id, id >> 10
      HAVING count(*) FILTER (WHERE active_items > 0 OR returned_items > 0) > 0;

    -- One rider row's part in its block: +1 or -1 for each flag it has. (A -1 is an UPDATE: the
    -- row is there, and an INSERT's proposed row would fail the CHECKs before ON CONFLICT is seen.)
    -- As the owner, like the arrays' functions below: whoever may write riders keeps the blocks right.
    CREATE FUNCTION rider_list_blocks_add(company bigint, rider bigint, active_items integer, returned_items integer, sign integer)
      RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF sign < 0 THEN
        UPDATE rider_list_blocks
           SET with_items    = with_items    - (active_items > 0 OR returned_items > 0)::int,
               with_active   = with_active   - (active_items > 0)::int,
               with_returned = with_returned - (returned_items > 0)::int
         WHERE company_id = company AND block = rider >> 10;
      ELSE
        INSERT INTO rider_list_blocks AS b (company_id, block, with_items, with_active, with_returned)
        VALUES (company, rider >> 10, (active_items > 0 OR returned_items > 0)::int, (active_items > 0)::int, (returned_items > 0)::int)
        ON CONFLICT (company_id, block) DO UPDATE
          SET with_items    = b.with_items    + EXCLUDED.with_items,
              with_active   = b.with_active   + EXCLUDED.with_active,
              with_returned = b.with_returned + EXCLUDED.with_returned;
      END IF;
    END $$;

    CREATE FUNCTION riders_keep_list_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE'
         AND NEW.company_id = OLD.company_id AND NEW.id = OLD.id
         AND (NEW.active_items > 0) = (OLD.active_items > 0)
         AND (NEW.returned_items > 0) = (OLD.returned_items > 0) THEN
        RETURN NULL; -- the common case: a count changed, no flag did
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') AND (OLD.active_items > 0 OR OLD.returned_items > 0) THEN
        PERFORM rider_list_blocks_add(OLD.company_id, OLD.id, OLD.active_items, OLD.returned_items, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND (NEW.active_items > 0 OR NEW.returned_items > 0) THEN
        PERFORM rider_list_blocks_add(NEW.company_id, NEW.id, NEW.active_items, NEW.returned_items, 1);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER riders_list_blocks
      AFTER INSERT OR DELETE OR UPDATE OF id, company_id, active_items, returned_items ON riders
      FOR EACH ROW EXECUTE FUNCTION riders_keep_list_blocks();

    -- Bulk loaders disable the trigger and call this once afterwards.
    CREATE FUNCTION rider_list_blocks_rebuild() RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM rider_list_blocks;
      INSERT INTO rider_list_blocks SELECT * FROM rider_list_block_counts;
    $$;

    SELECT rider_list_blocks_rebuild();

    -- The page's riders within a block, with a 3PL: index-only, the flags read from the index.
    CREATE INDEX riders_company_list_idx ON riders (company_id, id) INCLUDE (active_items, returned_items);

    CREATE TABLE rider_list_zone (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      zone     text    NOT NULL
    );
    INSERT INTO rider_list_zone (zone) VALUES ('UTC');

    CREATE TABLE rider_list_entries (
      rider_id       bigint PRIMARY KEY REFERENCES riders ON DELETE CASCADE,
      all_entry      text   NOT NULL,
      active_entry   text,
      returned_entry text
    );
    COMMENT ON TABLE rider_list_entries IS 'Each rider''s entry in /v2/rider-equipment-list (all, active, returned products) as JSON text, dates in rider_list_zone; kept by triggers.';

    -- The text json_build_object('rider_id', ..., '3pl_name', ..., 'country_code', ..., 'products', ...)
    -- gives, as the service writes it (see jsonObjectText); NULL when the rider has no such product.
    CREATE VIEW rider_list_entry_docs AS
      WITH products AS (
        SELECT a.rider_id,
               json_agg(d.doc ORDER BY a.assigned_at, a.id) AS all_doc,
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
         GROUP BY a.rider_id
      )
      SELECT r.id AS rider_id,
             concat(h.head, x.all_doc::text, '}') AS all_entry,
             CASE WHEN x.active_doc IS NOT NULL THEN concat(h.head, x.active_doc::text, '}') END AS active_entry,
             CASE WHEN x.returned_doc IS NOT NULL THEN concat(h.head, x.returned_doc::text, '}') END AS returned_entry
        FROM products x
        JOIN riders r ON r.id = x.rider_id
        JOIN companies c ON c.id = r.company_id
        JOIN countries co ON co.id = r.country_id
        CROSS JOIN LATERAL (SELECT concat('{"rider_id" : ', coalesce(to_json(r.id::text)::text, 'null'),
                                          ', "3pl_name" : ', coalesce(to_json(c.name)::text, 'null'),
                                          ', "country_code" : ', coalesce(to_json(co.code)::text, 'null'),
                                          ', "products" : ') AS head) h;

    -- Writes the entries of these riders afresh from the view (and drops those left without any
    -- product). As the owner: whoever may write the tables they come from keeps them right without a
    -- grant on this table of its own.
    CREATE FUNCTION rider_list_entries_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM rider_list_entries WHERE rider_id = ANY (ids);
      INSERT INTO rider_list_entries (rider_id, all_entry, active_entry, returned_entry)
        SELECT rider_id, all_entry, active_entry, returned_entry FROM rider_list_entry_docs WHERE rider_id = ANY (ids);
    $$;

    CREATE FUNCTION rider_list_entries_rebuild() RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM rider_list_entries;
      INSERT INTO rider_list_entries (rider_id, all_entry, active_entry, returned_entry)
        SELECT rider_id, all_entry, active_entry, returned_entry FROM rider_list_entry_docs;
    $$;

    -- For a service whose TIME_ZONE is not UTC: SELECT rider_list_set_zone('Europe/Berlin').
    CREATE FUNCTION rider_list_set_zone(new_zone text) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM now() AT TIME ZONE new_zone; -- an unknown zone fails here, before anything changes
      UPDATE rider_list_zone SET zone = new_zone;
      PERFORM rider_list_entries_rebuild();
    END $$;

    -- One statement-level function for the three assignment triggers: each names its transition tables.
    CREATE FUNCTION assignments_refresh_rider_list_entries() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM rider_list_entries_refresh(ARRAY(SELECT DISTINCT rider_id FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM rider_list_entries_refresh(ARRAY(SELECT DISTINCT rider_id FROM old_rows));
      ELSE
        PERFORM rider_list_entries_refresh(ARRAY(SELECT rider_id FROM new_rows UNION SELECT rider_id FROM old_rows));
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER assignments_insert_rider_list_entries
      AFTER INSERT ON assignments REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries();
    CREATE TRIGGER assignments_update_rider_list_entries
      AFTER UPDATE ON assignments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries();
    CREATE TRIGGER assignments_delete_rider_list_entries
      AFTER DELETE ON assignments REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION assignments_refresh_rider_list_entries();

    CREATE FUNCTION assignments_truncate_rider_list_entries() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM rider_list_entries) THEN
        TRUNCATE rider_list_entries;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER assignments_truncate_rider_list_entries
      AFTER TRUNCATE ON assignments
      FOR EACH STATEMENT EXECUTE FUNCTION assignments_truncate_rider_list_entries();

    -- A product or variation renamed: the entries of every rider who ever held it.
    CREATE FUNCTION products_refresh_rider_list_entries() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'products' THEN
        PERFORM rider_list_entries_refresh(ARRAY(SELECT DISTINCT rider_id FROM assignments WHERE product_id = NEW.id));
      ELSE
        PERFORM rider_list_entries_refresh(ARRAY(SELECT DISTINCT rider_id FROM assignments WHERE variation_id = NEW.id));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER products_rider_list_entries
      AFTER UPDATE OF name ON products
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION products_refresh_rider_list_entries();
    CREATE TRIGGER product_variations_rider_list_entries
      AFTER UPDATE OF name ON product_variations
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION products_refresh_rider_list_entries();

    -- A rider moved to another 3PL or country, or a 3PL or country renamed: the entries that name it.
    CREATE FUNCTION riders_refresh_rider_list_entries() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'riders' THEN
        PERFORM rider_list_entries_refresh(ARRAY[NEW.id]);
      ELSIF TG_TABLE_NAME = 'companies' THEN
        PERFORM rider_list_entries_refresh(ARRAY(SELECT id FROM riders WHERE company_id = NEW.id));
      ELSE
        PERFORM rider_list_entries_refresh(ARRAY(SELECT id FROM riders WHERE country_id = NEW.id));
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER riders_rider_list_entries
      AFTER UPDATE OF company_id, country_id ON riders
      FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id OR OLD.country_id IS DISTINCT FROM NEW.country_id)
      EXECUTE FUNCTION riders_refresh_rider_list_entries();
    CREATE TRIGGER companies_rider_list_entries
      AFTER UPDATE OF name ON companies
      FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION riders_refresh_rider_list_entries();
    CREATE TRIGGER countries_rider_list_entries
      AFTER UPDATE OF code ON countries
      FOR EACH ROW WHEN (OLD.code IS DISTINCT FROM NEW.code) EXECUTE FUNCTION riders_refresh_rider_list_entries();

    SELECT rider_list_entries_rebuild();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER countries_rider_list_entries ON countries;
    DROP TRIGGER companies_rider_list_entries ON companies;
    DROP TRIGGER riders_rider_list_entries ON riders;
    DROP TRIGGER product_variations_rider_list_entries ON product_variations;
    DROP TRIGGER products_rider_list_entries ON products;
    DROP TRIGGER assignments_truncate_rider_list_entries ON assignments;
    DROP TRIGGER assignments_delete_rider_list_entries ON assignments;
    DROP TRIGGER assignments_update_rider_list_entries ON assignments;
    DROP TRIGGER assignments_insert_rider_list_entries ON assignments;
    DROP FUNCTION riders_refresh_rider_list_entries(), products_refresh_rider_list_entries(), assignments_truncate_rider_list_entries(),
      assignments_refresh_rider_list_entries(), rider_list_set_zone(text), rider_list_entries_rebuild(), rider_list_entries_refresh(bigint[]);
    DROP VIEW rider_list_entry_docs;
    DROP TABLE rider_list_entries, rider_list_zone;
    DROP INDEX riders_company_list_idx;
    DROP TRIGGER riders_list_blocks ON riders;
    DROP FUNCTION rider_list_blocks_rebuild(), riders_keep_list_blocks(), rider_list_blocks_add(bigint, bigint, integer, integer, integer);
    DROP VIEW rider_list_block_counts;
    DROP TABLE rider_list_blocks;
  `);
}

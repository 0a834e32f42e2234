import type { Knex } from 'knex';

// The admin lists page and count over their own table (src/queries/keyset.ts), but a 3PL, a returned
// item's product or a rider of a return or exchange lived on other tables: each filter by them joined
// riders and assignments, and a count of 10,001 matching rows read several tables (at 100,000 riders a
// 3PL's returns took 180 ms to count, a product's returns sorted by date 1.5 s at page 400), growing
// with the fleet. These columns keep them on the list's own table, with indexes in the lists' orders,
// so a filtered page and its count are ranges of one index:
//
// - patrol_checks.company_id and assignments.company_id: the rider's 3PL.
// - product_returns: rider_id, company_id, product_id, variation_id of the returned assignment.
// - product_exchanges: rider_id, company_id, old_product_id, old_variation_id of the assignment given
//   back, and new_product_id, new_variation_id of the one handed out.
//
// Triggers keep them: each row's are written before it is inserted or its sources change (and put
// back if written by hand); a rider moving to another 3PL, or an assignment to another rider or item,
// rewrites the rows that copy it. The views *_list_key_docs are their one definition (what the tests
// compare the columns with), and list_keys_rebuild() writes them for a bulk loader that turned the
// triggers off. The functions run as the owner, so a system that writes the data needs no grant.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE patrol_checks ADD COLUMN company_id bigint;
    ALTER TABLE assignments ADD COLUMN company_id bigint;
    ALTER TABLE product_returns ADD COLUMN rider_id bigint, ADD COLUMN company_id bigint,
      ADD COLUMN product_id bigint, ADD COLUMN variation_id bigint;
    ALTER TABLE product_exchanges ADD COLUMN rider_id bigint, ADD COLUMN company_id bigint,
      ADD COLUMN old_product_id bigint, ADD COLUMN old_variation_id bigint,
      ADD COLUMN new_product_id bigint, ADD COLUMN new_variation_id bigint;
    COMMENT ON COLUMN patrol_checks.company_id IS 'The rider''s 3PL, kept by triggers for the admin lists (migration 011).';
    COMMENT ON COLUMN assignments.company_id IS 'The rider''s 3PL, kept by triggers for the admin lists (migration 011).';
    COMMENT ON COLUMN product_returns.company_id IS 'With rider_id, product_id, variation_id: the returned assignment''s, kept by triggers (migration 011).';
    COMMENT ON COLUMN product_exchanges.company_id IS 'With rider_id and the old_ and new_ product and variation ids: the exchanged assignments'', kept by triggers (migration 011).';

    CREATE VIEW patrol_check_list_key_docs AS
      SELECT pc.id, r.company_id FROM patrol_checks pc JOIN riders r ON r.id = pc.rider_id;
    CREATE VIEW assignment_list_key_docs AS
      SELECT a.id, r.company_id FROM assignments a JOIN riders r ON r.id = a.rider_id;
    CREATE VIEW product_return_list_key_docs AS
      SELECT pr.id, a.rider_id, r.company_id, a.product_id, a.variation_id
        FROM product_returns pr JOIN assignments a ON a.id = pr.assignment_id JOIN riders r ON r.id = a.rider_id;
    CREATE VIEW product_exchange_list_key_docs AS
      SELECT e.id, oa.rider_id, r.company_id, oa.product_id AS old_product_id, oa.variation_id AS old_variation_id,
             na.product_id AS new_product_id, na.variation_id AS new_variation_id
        FROM product_exchanges e
        JOIN assignments oa ON oa.id = e.old_assignment_id
        JOIN riders r ON r.id = oa.rider_id
        JOIN assignments na ON na.id = e.new_assignment_id;

    -- Every row whose columns differ from the views'.
    CREATE FUNCTION list_keys_rebuild() RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      UPDATE patrol_checks t SET company_id = d.company_id FROM patrol_check_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE assignments t SET company_id = d.company_id FROM assignment_list_key_docs d
       WHERE d.id = t.id AND t.company_id IS DISTINCT FROM d.company_id;
      UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
        FROM product_return_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.product_id, t.variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
      UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
             old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
             new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
        FROM product_exchange_list_key_docs d
       WHERE d.id = t.id AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
                             IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id);
    $$;

    -- The columns of the rows there are. The statement triggers these updates would fire keep nothing
    -- the new columns change; off, they do not rebuild every kept entry and gap afterwards.
    ALTER TABLE patrol_checks DISABLE TRIGGER patrol_checks_update_attention;
    ALTER TABLE assignments DISABLE TRIGGER assignments_update_rider_list_entries;
    ALTER TABLE product_exchanges DISABLE TRIGGER product_exchanges_update_attention;
    SELECT list_keys_rebuild();
    ALTER TABLE patrol_checks ENABLE TRIGGER patrol_checks_update_attention;
    ALTER TABLE assignments ENABLE TRIGGER assignments_update_rider_list_entries;
    ALTER TABLE product_exchanges ENABLE TRIGGER product_exchanges_update_attention;

    -- Before a row is written: its columns from its rider or assignments (SELECT INTO writes NULLs when
    -- they are missing; the foreign keys then refuse the row as before).
    CREATE FUNCTION rider_company_list_key() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      NEW.company_id := (SELECT r.company_id FROM riders r WHERE r.id = NEW.rider_id);
      RETURN NEW;
    END $$;
    CREATE TRIGGER patrol_checks_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON patrol_checks
      FOR EACH ROW EXECUTE FUNCTION rider_company_list_key();
    CREATE TRIGGER assignments_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON assignments
      FOR EACH ROW EXECUTE FUNCTION rider_company_list_key();

    CREATE FUNCTION product_returns_list_keys() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      SELECT a.rider_id, r.company_id, a.product_id, a.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.product_id, NEW.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id WHERE a.id = NEW.assignment_id;
      RETURN NEW;
    END $$;
    CREATE TRIGGER product_returns_list_keys
      BEFORE INSERT OR UPDATE OF assignment_id, rider_id, company_id, product_id, variation_id ON product_returns
      FOR EACH ROW EXECUTE FUNCTION product_returns_list_keys();

    CREATE FUNCTION product_exchanges_list_keys() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      SELECT oa.rider_id, r.company_id, oa.product_id, oa.variation_id
        INTO NEW.rider_id, NEW.company_id, NEW.old_product_id, NEW.old_variation_id
        FROM assignments oa JOIN riders r ON r.id = oa.rider_id WHERE oa.id = NEW.old_assignment_id;
      SELECT na.product_id, na.variation_id INTO NEW.new_product_id, NEW.new_variation_id
        FROM assignments na WHERE na.id = NEW.new_assignment_id;
      RETURN NEW;
    END $$;
    CREATE TRIGGER product_exchanges_list_keys
      BEFORE INSERT OR UPDATE OF old_assignment_id, new_assignment_id, rider_id, company_id,
        old_product_id, old_variation_id, new_product_id, new_variation_id ON product_exchanges
      FOR EACH ROW EXECUTE FUNCTION product_exchanges_list_keys();

    -- After a source changes: the rows that copy it are rewritten (the triggers above then read the
    -- new values). A rider moved to another 3PL takes its checks, items, returns and exchanges along.
    CREATE FUNCTION riders_list_keys() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE patrol_checks SET company_id = NEW.company_id WHERE rider_id = NEW.id;
      UPDATE assignments SET company_id = NEW.company_id WHERE rider_id = NEW.id;
      UPDATE product_returns SET company_id = NEW.company_id WHERE rider_id = NEW.id;
      UPDATE product_exchanges SET company_id = NEW.company_id WHERE rider_id = NEW.id;
      RETURN NULL;
    END $$;
    CREATE TRIGGER riders_list_keys AFTER UPDATE OF company_id ON riders
      FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id) EXECUTE FUNCTION riders_list_keys();

    CREATE FUNCTION assignments_list_keys_follow() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE product_returns SET rider_id = NEW.rider_id, product_id = NEW.product_id, variation_id = NEW.variation_id
       WHERE assignment_id = NEW.id;
      UPDATE product_exchanges SET rider_id = NEW.rider_id, old_product_id = NEW.product_id, old_variation_id = NEW.variation_id
       WHERE old_assignment_id = NEW.id;
      UPDATE product_exchanges SET new_product_id = NEW.product_id, new_variation_id = NEW.variation_id
       WHERE new_assignment_id = NEW.id;
      RETURN NULL;
    END $$;
    CREATE TRIGGER assignments_list_keys_follow AFTER UPDATE OF rider_id, product_id, variation_id ON assignments
      FOR EACH ROW WHEN ((OLD.rider_id, OLD.product_id, OLD.variation_id) IS DISTINCT FROM (NEW.rider_id, NEW.product_id, NEW.variation_id))
      EXECUTE FUNCTION assignments_list_keys_follow();

    -- The lists' orders within a 3PL (by date; by rider, as the "3PL" sort reads each 3PL), a rider's
    -- returns and exchanges, a product's or variation's by date (the variation's with its product, so
    -- an item picked as both reads the index alone), and a patroller's checks by date.
    CREATE INDEX patrol_checks_company_date_idx   ON patrol_checks (company_id, checked_at, id);
    CREATE INDEX patrol_checks_company_rider_idx  ON patrol_checks (company_id, rider_id, id);
    CREATE INDEX patrol_checks_patroller_date_idx ON patrol_checks (patroller_id, checked_at, id);
    CREATE INDEX assignments_company_date_idx     ON assignments (company_id, assigned_at, id);
    CREATE INDEX assignments_company_rider_idx    ON assignments (company_id, rider_id, assigned_at, id);
    CREATE INDEX product_returns_company_date_idx  ON product_returns (company_id, returned_at, id);
    CREATE INDEX product_returns_company_rider_idx ON product_returns (company_id, rider_id, id);
    CREATE INDEX product_returns_rider_idx         ON product_returns (rider_id, id);
    CREATE INDEX product_returns_product_idx       ON product_returns (product_id, returned_at, id);
    CREATE INDEX product_returns_variation_idx     ON product_returns (variation_id, returned_at, id) INCLUDE (product_id);
    CREATE INDEX product_exchanges_company_date_idx  ON product_exchanges (company_id, exchanged_at, id);
    CREATE INDEX product_exchanges_company_rider_idx ON product_exchanges (company_id, rider_id, id);
    CREATE INDEX product_exchanges_rider_idx         ON product_exchanges (rider_id, id);
    CREATE INDEX product_exchanges_old_product_idx   ON product_exchanges (old_product_id, exchanged_at, id);
    CREATE INDEX product_exchanges_old_variation_idx ON product_exchanges (old_variation_id, exchanged_at, id) INCLUDE (old_product_id);
    CREATE INDEX product_exchanges_new_product_idx   ON product_exchanges (new_product_id, exchanged_at, id);
    CREATE INDEX product_exchanges_new_variation_idx ON product_exchanges (new_variation_id, exchanged_at, id) INCLUDE (new_product_id);
    -- Returned items by date: the newest assignments are mostly still held, so "returned, newest
    -- first" read past them in the date index (13,500 at 100,000 riders, growing with the fleet). A
    -- variation's items with their product, so an item picked as both is counted from the index alone.
    CREATE INDEX assignments_returned_date_idx ON assignments (assigned_at, id) WHERE deleted_at IS NOT NULL;
    DROP INDEX assignments_variation_idx;
    CREATE INDEX assignments_variation_idx ON assignments (variation_id, assigned_at, id) INCLUDE (product_id);
    -- The printed reports' open points of a batch of riders: their items past the exchange day, found
    -- by rider instead of among every overdue item (24 ms of each report at 100,000 riders).
    CREATE INDEX kept_assignment_days_rider_idx ON kept_assignment_days (rider_id, eligible_at) INCLUDE (deleted_at);
    ANALYZE patrol_checks, assignments, product_returns, product_exchanges, kept_assignment_days;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX kept_assignment_days_rider_idx, assignments_returned_date_idx, assignments_variation_idx;
    CREATE INDEX assignments_variation_idx ON assignments (variation_id, assigned_at, id);
    DROP TRIGGER assignments_list_keys_follow ON assignments;
    DROP TRIGGER riders_list_keys ON riders;
    DROP TRIGGER product_exchanges_list_keys ON product_exchanges;
    DROP TRIGGER product_returns_list_keys ON product_returns;
    DROP TRIGGER assignments_list_keys ON assignments;
    DROP TRIGGER patrol_checks_list_keys ON patrol_checks;
    DROP FUNCTION assignments_list_keys_follow(), riders_list_keys(), product_exchanges_list_keys(), product_returns_list_keys(),
      rider_company_list_key(), list_keys_rebuild();
    DROP VIEW product_exchange_list_key_docs, product_return_list_key_docs, assignment_list_key_docs, patrol_check_list_key_docs;
    ALTER TABLE product_exchanges DROP COLUMN rider_id, DROP COLUMN company_id, DROP COLUMN old_product_id,
      DROP COLUMN old_variation_id, DROP COLUMN new_product_id, DROP COLUMN new_variation_id;
    ALTER TABLE product_returns DROP COLUMN rider_id, DROP COLUMN company_id, DROP COLUMN product_id, DROP COLUMN variation_id;
    ALTER TABLE assignments DROP COLUMN company_id;
    ALTER TABLE patrol_checks DROP COLUMN company_id;
  `);
}

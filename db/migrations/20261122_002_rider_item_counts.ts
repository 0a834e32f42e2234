import type { Knex } from 'knex';

// How many items each rider holds and has given back, kept by a trigger on assignments. The rider
// equipment list counts and pages riders "with active / returned / any equipment"; with these
// columns and their partial indexes that is an index-only scan of riders instead of a semi-join
// over every assignment, so the total and any page, the last included, stay cheap.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE riders
      ADD COLUMN active_items   integer NOT NULL DEFAULT 0 CHECK (active_items >= 0),
      ADD COLUMN returned_items integer NOT NULL DEFAULT 0 CHECK (returned_items >= 0);

    CREATE FUNCTION riders_count_items() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE riders
           SET active_items   = active_items   - (OLD.deleted_at IS NULL)::int,
               returned_items = returned_items - (OLD.deleted_at IS NOT NULL)::int
         WHERE id = OLD.rider_id;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE riders
           SET active_items   = active_items   + (NEW.deleted_at IS NULL)::int,
               returned_items = returned_items + (NEW.deleted_at IS NOT NULL)::int
         WHERE id = NEW.rider_id;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER assignments_count_items
      AFTER INSERT OR DELETE OR UPDATE OF rider_id, deleted_at ON assignments
      FOR EACH ROW EXECUTE FUNCTION riders_count_items();

    CREATE FUNCTION riders_reset_item_counts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE riders SET active_items = 0, returned_items = 0 WHERE active_items <> 0 OR returned_items <> 0;
      RETURN NULL;
    END $$;

    CREATE TRIGGER assignments_truncate_counts
      AFTER TRUNCATE ON assignments
      FOR EACH STATEMENT EXECUTE FUNCTION riders_reset_item_counts();

    -- Bulk loaders disable the row trigger and call this once afterwards.
    CREATE FUNCTION riders_recount_items() RETURNS void LANGUAGE sql AS $$
      UPDATE riders r
         SET active_items = coalesce(c.active, 0), returned_items = coalesce(c.returned, 0)
        FROM (SELECT r2.id,
                     count(a.id) FILTER (WHERE a.deleted_at IS NULL) AS active,
                     count(a.id) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned
                FROM riders r2 LEFT JOIN assignments a ON a.rider_id = r2.id
               GROUP BY r2.id) c
       WHERE c.id = r.id
         AND (r.active_items, r.returned_items) IS DISTINCT FROM (coalesce(c.active, 0), coalesce(c.returned, 0));
    $$;

    SELECT riders_recount_items();

    CREATE INDEX riders_with_items_idx    ON riders (id) WHERE active_items > 0 OR returned_items > 0;
    CREATE INDEX riders_with_active_idx   ON riders (id) WHERE active_items > 0;
    CREATE INDEX riders_with_returned_idx ON riders (id) WHERE returned_items > 0;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER assignments_truncate_counts ON assignments;
    DROP TRIGGER assignments_count_items ON assignments;
    DROP FUNCTION riders_recount_items(), riders_reset_item_counts(), riders_count_items();
    ALTER TABLE riders DROP COLUMN active_items, DROP COLUMN returned_items;
  `);
}

-- Takes the service out of the writers' statements, once it is uninstalled: drops every trigger it put on
-- the data's tables (those that log changes for its kept data, *_kept_changes, and those that copy a row's
-- rider and 3PL onto the row, *_list_keys). Run as the tables' owner:
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f db/uninstall-triggers.sql
-- Nothing else changes: the service's own tables and functions stay until you drop them, and the columns
-- the list keys filled keep their last values. It is for a service gone for good: the migrations do not
-- put the triggers back on a database they have already migrated.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT tg.tgname, tg.tgrelid::regclass AS relation
      FROM pg_trigger tg
     WHERE NOT tg.tgisinternal
       AND (tg.tgname LIKE '%\_kept\_changes' OR tg.tgname LIKE '%\_list\_keys')
       AND tg.tgrelid::regclass::text IN ('riders', 'assignments', 'product_returns', 'product_exchanges', 'patrol_checks',
                                          'patrol_check_answers', 'products', 'product_variations', 'companies', 'countries', 'questions')
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.relation);
    RAISE NOTICE 'dropped trigger % on %', t.tgname, t.relation;
  END LOOP;
END $$;

-- Every trigger on the data, as the migrations leave them now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

CREATE TRIGGER assignments_delete_kept_changes AFTER DELETE ON public.assignments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER assignments_insert_kept_changes AFTER INSERT ON public.assignments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER assignments_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON public.assignments FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION rider_company_list_key();
CREATE TRIGGER assignments_truncate_kept_changes AFTER TRUNCATE ON public.assignments FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER assignments_update_kept_changes AFTER UPDATE ON public.assignments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assignments_log_kept_changes();
CREATE TRIGGER companies_kept_changes AFTER UPDATE OF name ON public.companies FOR EACH ROW WHEN ((old.name IS DISTINCT FROM new.name)) EXECUTE FUNCTION catalog_log_kept_changes('o');
CREATE TRIGGER countries_kept_changes AFTER UPDATE OF code ON public.countries FOR EACH ROW WHEN ((old.code IS DISTINCT FROM new.code)) EXECUTE FUNCTION catalog_log_kept_changes('n');
CREATE TRIGGER patrol_check_answers_delete_kept_changes AFTER DELETE ON public.patrol_check_answers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_check_answers_insert_kept_changes AFTER INSERT ON public.patrol_check_answers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_check_answers_truncate_kept_changes AFTER TRUNCATE ON public.patrol_check_answers FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER patrol_check_answers_update_kept_changes AFTER UPDATE ON public.patrol_check_answers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_log_kept_changes();
CREATE TRIGGER patrol_checks_delete_kept_changes AFTER DELETE ON public.patrol_checks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER patrol_checks_insert_kept_changes AFTER INSERT ON public.patrol_checks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER patrol_checks_list_keys BEFORE INSERT OR UPDATE OF rider_id, company_id ON public.patrol_checks FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION rider_company_list_key();
CREATE TRIGGER patrol_checks_truncate_kept_changes AFTER TRUNCATE ON public.patrol_checks FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER patrol_checks_update_kept_changes AFTER UPDATE ON public.patrol_checks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patrol_checks_log_kept_changes();
CREATE TRIGGER product_exchanges_delete_kept_changes AFTER DELETE ON public.product_exchanges REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_exchanges_insert_kept_changes AFTER INSERT ON public.product_exchanges REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_exchanges_list_keys BEFORE INSERT OR UPDATE OF old_assignment_id, new_assignment_id, rider_id, company_id, old_product_id, old_variation_id, new_product_id, new_variation_id ON public.product_exchanges FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION product_exchanges_list_keys();
CREATE TRIGGER product_exchanges_truncate_kept_changes AFTER TRUNCATE ON public.product_exchanges FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER product_exchanges_update_kept_changes AFTER UPDATE ON public.product_exchanges REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_exchanges_log_kept_changes();
CREATE TRIGGER product_returns_list_keys BEFORE INSERT OR UPDATE OF assignment_id, rider_id, company_id, product_id, variation_id ON public.product_returns FOR EACH ROW WHEN ((current_setting('kept.applying'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION product_returns_list_keys();
CREATE TRIGGER product_variations_kept_changes AFTER UPDATE OF name ON public.product_variations FOR EACH ROW WHEN ((old.name IS DISTINCT FROM new.name)) EXECUTE FUNCTION catalog_log_kept_changes('v');
CREATE TRIGGER products_kept_changes AFTER UPDATE OF name, exchange_after_days ON public.products FOR EACH ROW WHEN (((old.name IS DISTINCT FROM new.name) OR (old.exchange_after_days IS DISTINCT FROM new.exchange_after_days))) EXECUTE FUNCTION catalog_log_kept_changes('p');
CREATE TRIGGER questions_kept_changes AFTER UPDATE OF text, category ON public.questions FOR EACH ROW WHEN (((old.text IS DISTINCT FROM new.text) OR (old.category IS DISTINCT FROM new.category))) EXECUTE FUNCTION catalog_log_kept_changes('Q');
CREATE TRIGGER rider_list_zone_attention AFTER UPDATE ON public.rider_list_zone FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_attention();
CREATE TRIGGER rider_list_zone_rules AFTER UPDATE ON public.rider_list_zone FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_rules();
CREATE TRIGGER riders_delete_kept_changes AFTER DELETE ON public.riders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION riders_log_kept_changes();
CREATE TRIGGER riders_insert_kept_changes AFTER INSERT ON public.riders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION riders_log_kept_changes();
CREATE TRIGGER riders_truncate_kept_changes AFTER TRUNCATE ON public.riders FOR EACH STATEMENT EXECUTE FUNCTION truncate_log_kept_changes();
CREATE TRIGGER riders_update_kept_changes AFTER UPDATE OF id, company_id, country_id, name ON public.riders FOR EACH ROW WHEN (((((old.id IS DISTINCT FROM new.id) OR (old.company_id IS DISTINCT FROM new.company_id)) OR (old.country_id IS DISTINCT FROM new.country_id)) OR (old.name IS DISTINCT FROM new.name))) EXECUTE FUNCTION riders_log_kept_changes();

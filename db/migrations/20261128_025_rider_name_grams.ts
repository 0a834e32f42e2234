import type { Knex } from 'knex';

// The rider lookup and search as fast at 1,000,000 riders as at 100,000 (issue 43). Both list the
// riders whose name holds each typed word, in name order. The trigram index of migration 016 finds
// every such rider and sorts them all before the first 20: a two-letter term ("mo") holds 3.6 % of the
// fleet, 36,000 riders at 1,000,000 (470 ms). The name index read in name order stops after 20
// matches, but only where matches are spread evenly: 33,599 names read for "mo" at 100,000 riders.
//
// Kept here: for each rider, each distinct pair of letters (bigram) of each word of its name key
// (rider_name_key, migration 016), with the rider's name, in (bigram, name, id) order. Every rider
// whose name holds a word holds each bigram of that word, so the riders of one bigram of the term,
// read in name order and checked against the whole term, give the first matches after reading about
// as many rows as they hold: flat in the fleet's size. The search reads the term's rarest bigram
// (kept_rider_name_gram_counts; src/queries/rider-equipment.ts). The name is kept as its first 500 characters (an index entry
// holds at most about 2,700 bytes): names alike that far are ordered by id.
//
// Writers pay one row in the change log for a renamed rider (new and deleted riders were logged
// already); the applier writes a changed rider's bigrams afresh. The trigram index goes: nothing
// reads it now, and each insert of a rider no longer writes its 20-odd GIN entries.

const GRAMS = `
      SELECT DISTINCT b.gram, left(r.name, 500) AS name, r.id AS rider_id, r.name_key, r.company_id
        FROM riders r CROSS JOIN LATERAL unnest(rider_name_bigrams(r.name_key)) AS b(gram)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The distinct bigrams of each space-separated word of a name key (a word of one letter has none).
    CREATE FUNCTION rider_name_bigrams(key text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN ARRAY(SELECT DISTINCT substr(w, i, 2) FROM regexp_split_to_table(key, ' ') AS w, generate_series(1, length(w) - 1) AS i);

    -- The name key and 3PL ride in the index: a page checks the whole term and the supervisor's 3PL on
    -- the index entries alone, and reads the riders' rows for the page's riders only.
    CREATE TABLE kept_rider_name_grams (
      gram       text   NOT NULL,
      name       text   NOT NULL,
      rider_id   bigint NOT NULL,
      name_key   text   NOT NULL,
      company_id bigint NOT NULL,
      PRIMARY KEY (gram, name, rider_id) INCLUDE (name_key, company_id)
    );
    COMMENT ON TABLE kept_rider_name_grams IS 'Each bigram of each rider''s name key, with the name: the rider search in name order (migration 025); kept by the applier.';
    CREATE VIEW kept_rider_name_gram_docs AS ${GRAMS};

    -- How many riders' names hold each bigram: the search reads the range of the term's rarest.
    CREATE TABLE kept_rider_name_gram_counts (
      gram   text    PRIMARY KEY,
      riders integer NOT NULL CHECK (riders >= 0)
    );
    COMMENT ON TABLE kept_rider_name_gram_counts IS 'Riders per bigram of kept_rider_name_grams (migration 025); kept by the applier.';
    CREATE VIEW kept_rider_name_gram_count_docs AS SELECT gram, count(*)::int AS riders FROM kept_rider_name_grams GROUP BY gram;

    CREATE FUNCTION kept_rider_name_grams_refresh(riders_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      WITH old AS (DELETE FROM kept_rider_name_grams WHERE rider_id = ANY (riders_) RETURNING gram)
      UPDATE kept_rider_name_gram_counts k SET riders = k.riders - o.riders
        FROM (SELECT gram, count(*) AS riders FROM old GROUP BY gram) o WHERE k.gram = o.gram;
      WITH new AS (
        INSERT INTO kept_rider_name_grams
          SELECT DISTINCT b.gram, left(r.name, 500), r.id, r.name_key, r.company_id
            FROM riders r CROSS JOIN LATERAL unnest(rider_name_bigrams(r.name_key)) AS b(gram)
           WHERE r.id = ANY (riders_)
        RETURNING gram)
      INSERT INTO kept_rider_name_gram_counts AS k (gram, riders) SELECT gram, count(*) FROM new GROUP BY gram
        ON CONFLICT (gram) DO UPDATE SET riders = k.riders + excluded.riders;
      DELETE FROM kept_rider_name_gram_counts WHERE riders = 0;
    END $$;
    CREATE FUNCTION kept_rider_name_grams_rebuild() RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT BEGIN ATOMIC
      DELETE FROM kept_rider_name_grams;
      INSERT INTO kept_rider_name_grams SELECT * FROM kept_rider_name_gram_docs;
      DELETE FROM kept_rider_name_gram_counts;
      INSERT INTO kept_rider_name_gram_counts SELECT * FROM kept_rider_name_gram_count_docs;
    END;

    -- A renamed rider goes into the log as a moved one does.
    DROP TRIGGER riders_update_kept_changes ON riders;
    CREATE TRIGGER riders_update_kept_changes AFTER UPDATE OF id, company_id, country_id, name ON riders FOR EACH ROW
      WHEN ((OLD.id, OLD.company_id, OLD.country_id, OLD.name) IS DISTINCT FROM (NEW.id, NEW.company_id, NEW.country_id, NEW.name))
      EXECUTE FUNCTION riders_log_kept_changes();

    CREATE OR REPLACE FUNCTION kept_apply(batch integer DEFAULT 1000) RETURNS integer LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '200ms' SET kept.applying = 'on'
      -- Each statement planned for the ids at hand: a plan made once for any array may read whole tables.
      SET plan_cache_mode = force_custom_plan AS $$
    DECLARE
      taken integer;
      truncated boolean;
      riders_ bigint[]; held bigint[]; checked bigint[]; moved_items bigint[]; answered bigint[]; entries bigint[];
      check_quarters timestamptz[]; exchange_quarters timestamptz[];
      products_ bigint[]; variations bigint[]; companies_ bigint[]; countries_ bigint[]; questions_ bigint[];
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('kept_apply', 0)) THEN RETURN -1; END IF;
      WITH taken AS (
        DELETE FROM kept_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM kept_changes LIMIT batch)) RETURNING kind, id, at
      )
      SELECT count(*), bool_or(kind = 'T'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'r'), array_agg(DISTINCT id) FILTER (WHERE kind = 'h'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'g'), array_agg(DISTINCT id) FILTER (WHERE kind = 'k'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'c'), array_agg(DISTINCT id) FILTER (WHERE kind = 'e'),
             array_agg(DISTINCT at) FILTER (WHERE kind = 'q'), array_agg(DISTINCT at) FILTER (WHERE kind = 'x'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'p'), array_agg(DISTINCT id) FILTER (WHERE kind = 'v'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'o'), array_agg(DISTINCT id) FILTER (WHERE kind = 'n'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'Q')
        INTO taken, truncated, riders_, held, checked, moved_items, answered, entries, check_quarters, exchange_quarters,
             products_, variations, companies_, countries_, questions_
        FROM taken;
      IF taken = 0 THEN RETURN 0; END IF;
      IF truncated THEN
        PERFORM kept_rebuild();
        RETURN taken;
      END IF;

      -- A catalog row names every rider or check that shows it: those go back into the log, to be
      -- written in later batches (a product's holders may be most of the fleet).
      IF products_ IS NOT NULL OR variations IS NOT NULL OR companies_ IS NOT NULL OR countries_ IS NOT NULL OR questions_ IS NOT NULL THEN
      INSERT INTO kept_changes (kind, id)
        SELECT 'h', rider_id FROM assignments WHERE product_id = ANY (products_)
        UNION SELECT 'e', rider_id FROM assignments WHERE variation_id = ANY (variations)
        UNION SELECT 'e', id FROM riders WHERE company_id = ANY (companies_) OR country_id = ANY (countries_)
        UNION SELECT 'c', check_id FROM patrol_check_answers WHERE question_id = ANY (questions_);
      END IF;

      riders_ := coalesce(riders_, '{}');
      held := riders_ || coalesce(held, '{}');
      checked := riders_ || coalesce(checked, '{}');
      entries := held || coalesce(entries, '{}');
      moved_items := coalesce(moved_items, '{}');
      -- A rider's row changed (moved to another 3PL, new, gone): its checks and exchanges count for the 3PL
      -- it has now. Every such rider's quarters are written afresh, whatever kept_riders last said: another
      -- move may have come between (riders move seldom; their checks' quarters are few).
      check_quarters := coalesce(check_quarters, '{}')
        || ARRAY(SELECT DISTINCT kept_quarter(checked_at) FROM patrol_checks WHERE rider_id = ANY (riders_));
      exchange_quarters := coalesce(exchange_quarters, '{}')
        || ARRAY(SELECT kept_quarter(e.exchanged_at) FROM assignments a JOIN product_exchanges e ON e.old_assignment_id = a.id
                  WHERE a.rider_id = ANY (riders_)
                 UNION SELECT kept_quarter(exchanged_at) FROM product_exchanges WHERE old_assignment_id = ANY (moved_items));

      PERFORM rider_list_entries_refresh_unlocked(entries);
      PERFORM kept_assignment_days_refresh_riders(held);
      PERFORM kept_check_gaps_refresh_unlocked(checked);
      PERFORM patrol_check_questioners_refresh_unlocked(coalesce(answered, '{}'));
      PERFORM kept_apply_quarters(check_quarters, exchange_quarters);
      -- Last, the rows writers also lock (their riders and their rows' list keys): held from here to the
      -- commit only, so a writer never waits on this batch for long.
      INSERT INTO kept_moved_riders SELECT DISTINCT unnest(riders_) ON CONFLICT DO NOTHING;
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)),
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)),
        moved_items);
      PERFORM kept_apply_riders(held);
      PERFORM kept_rules_refresh(held || checked);
      PERFORM kept_rider_name_grams_refresh(riders_);
      RETURN taken;
    END $$;
    CREATE OR REPLACE FUNCTION kept_rebuild() RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    BEGIN
      DELETE FROM kept_changes;
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();
      PERFORM kept_rules_rebuild();
      PERFORM kept_rider_name_grams_rebuild();
    END $$;

    SELECT kept_rider_name_grams_rebuild();
    DROP INDEX riders_name_key_trgm_idx;
  `);
  await knex.raw('ANALYZE kept_rider_name_grams, kept_rider_name_gram_counts');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX riders_name_key_trgm_idx ON riders USING gin (name_key gin_trgm_ops);
    CREATE OR REPLACE FUNCTION kept_apply(batch integer DEFAULT 1000) RETURNS integer LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '200ms' SET kept.applying = 'on'
      -- Each statement planned for the ids at hand: a plan made once for any array may read whole tables.
      SET plan_cache_mode = force_custom_plan AS $$
    DECLARE
      taken integer;
      truncated boolean;
      riders_ bigint[]; held bigint[]; checked bigint[]; moved_items bigint[]; answered bigint[]; entries bigint[];
      check_quarters timestamptz[]; exchange_quarters timestamptz[];
      products_ bigint[]; variations bigint[]; companies_ bigint[]; countries_ bigint[]; questions_ bigint[];
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('kept_apply', 0)) THEN RETURN -1; END IF;
      WITH taken AS (
        DELETE FROM kept_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM kept_changes LIMIT batch)) RETURNING kind, id, at
      )
      SELECT count(*), bool_or(kind = 'T'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'r'), array_agg(DISTINCT id) FILTER (WHERE kind = 'h'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'g'), array_agg(DISTINCT id) FILTER (WHERE kind = 'k'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'c'), array_agg(DISTINCT id) FILTER (WHERE kind = 'e'),
             array_agg(DISTINCT at) FILTER (WHERE kind = 'q'), array_agg(DISTINCT at) FILTER (WHERE kind = 'x'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'p'), array_agg(DISTINCT id) FILTER (WHERE kind = 'v'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'o'), array_agg(DISTINCT id) FILTER (WHERE kind = 'n'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'Q')
        INTO taken, truncated, riders_, held, checked, moved_items, answered, entries, check_quarters, exchange_quarters,
             products_, variations, companies_, countries_, questions_
        FROM taken;
      IF taken = 0 THEN RETURN 0; END IF;
      IF truncated THEN
        PERFORM kept_rebuild();
        RETURN taken;
      END IF;

      -- A catalog row names every rider or check that shows it: those go back into the log, to be
      -- written in later batches (a product's holders may be most of the fleet).
      IF products_ IS NOT NULL OR variations IS NOT NULL OR companies_ IS NOT NULL OR countries_ IS NOT NULL OR questions_ IS NOT NULL THEN
      INSERT INTO kept_changes (kind, id)
        SELECT 'h', rider_id FROM assignments WHERE product_id = ANY (products_)
        UNION SELECT 'e', rider_id FROM assignments WHERE variation_id = ANY (variations)
        UNION SELECT 'e', id FROM riders WHERE company_id = ANY (companies_) OR country_id = ANY (countries_)
        UNION SELECT 'c', check_id FROM patrol_check_answers WHERE question_id = ANY (questions_);
      END IF;

      riders_ := coalesce(riders_, '{}');
      held := riders_ || coalesce(held, '{}');
      checked := riders_ || coalesce(checked, '{}');
      entries := held || coalesce(entries, '{}');
      moved_items := coalesce(moved_items, '{}');
      -- A rider's row changed (moved to another 3PL, new, gone): its checks and exchanges count for the 3PL
      -- it has now. Every such rider's quarters are written afresh, whatever kept_riders last said: another
      -- move may have come between (riders move seldom; their checks' quarters are few).
      check_quarters := coalesce(check_quarters, '{}')
        || ARRAY(SELECT DISTINCT kept_quarter(checked_at) FROM patrol_checks WHERE rider_id = ANY (riders_));
      exchange_quarters := coalesce(exchange_quarters, '{}')
        || ARRAY(SELECT kept_quarter(e.exchanged_at) FROM assignments a JOIN product_exchanges e ON e.old_assignment_id = a.id
                  WHERE a.rider_id = ANY (riders_)
                 UNION SELECT kept_quarter(exchanged_at) FROM product_exchanges WHERE old_assignment_id = ANY (moved_items));

      PERFORM rider_list_entries_refresh_unlocked(entries);
      PERFORM kept_assignment_days_refresh_riders(held);
      PERFORM kept_check_gaps_refresh_unlocked(checked);
      PERFORM patrol_check_questioners_refresh_unlocked(coalesce(answered, '{}'));
      PERFORM kept_apply_quarters(check_quarters, exchange_quarters);
      -- Last, the rows writers also lock (their riders and their rows' list keys): held from here to the
      -- commit only, so a writer never waits on this batch for long.
      INSERT INTO kept_moved_riders SELECT DISTINCT unnest(riders_) ON CONFLICT DO NOTHING;
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)),
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)),
        moved_items);
      PERFORM kept_apply_riders(held);
      PERFORM kept_rules_refresh(held || checked);
      RETURN taken;
    END $$;
    CREATE OR REPLACE FUNCTION kept_rebuild() RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    BEGIN
      DELETE FROM kept_changes;
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();
      PERFORM kept_rules_rebuild();
    END $$;
    DROP TRIGGER riders_update_kept_changes ON riders;
    CREATE TRIGGER riders_update_kept_changes AFTER UPDATE OF id, company_id, country_id ON riders FOR EACH ROW
      WHEN ((OLD.id, OLD.company_id, OLD.country_id) IS DISTINCT FROM (NEW.id, NEW.company_id, NEW.country_id))
      EXECUTE FUNCTION riders_log_kept_changes();
    DROP FUNCTION kept_rider_name_grams_rebuild(), kept_rider_name_grams_refresh(bigint[]);
    DROP VIEW kept_rider_name_gram_count_docs, kept_rider_name_gram_docs;
    DROP TABLE kept_rider_name_gram_counts, kept_rider_name_grams;
    DROP FUNCTION rider_name_bigrams(text);
  `);
}

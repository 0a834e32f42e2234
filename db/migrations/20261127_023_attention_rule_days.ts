import type { Knex } from 'knex';

// Exact counts of "Needs attention" by rule, 3PL and day, at any day, as fast at 1,000,000 riders as at
// 300 (issue 42). Each rider rule (src/rules/) holds a rider on some spans of days; the rider's spans
// are kept per rule (kept_rule_riders: a multirange of days), and per rule, 3PL and day the riders that
// entered and left it (kept_rule_days). A rule's count at the end of day D is the sum of entered minus
// left over the days up to D: one index range per rule and 3PL, a few thousand rows whatever the
// fleet. Rows supervisors marked handled are taken off by the service (src/rules/counts.ts).
//
// The spans are the rules' own conditions written as days (a day in the zone of rider_list_zone, as
// the exchange days are; the rules judge a day at its end):
// - failing-checks: the gaps between checks (kept_check_gaps) whose opening check ends at least
//   `failed_checks` failures in a row: from the day of that check to the day of the next one;
// - overdue-items: each item from the day after its exchange day to the day it was returned;
// - unchecked: the gaps between checks from `unchecked_days` after their opening check (a rider never
//   checked: always) to the next check, on the days the rider held an item (assigned to returned).
//
// Writers pay nothing for this: the change log's applier (migration 018) writes it in the background,
// once per batch for the riders whose checks, items or row the batch wrote, after the kept tables it
// derives from (kept_check_gaps, kept_assignment_days); it is rebuilt with the rest by kept_rebuild(),
// for a new time zone (rider_list_set_zone) and for new thresholds (kept_rules_set, which the service
// runs at its start when ATTENTION_FAILED_CHECKS or ATTENTION_UNCHECKED_DAYS differ).

/** Entered and left per rule, 3PL and day, from a relation of (rule, company_id, days, sign). */
const dayEvents = (spans: string) => `
      SELECT s.rule, s.company_id, e.day, sum(e.entered)::int AS entered, sum(e.exited)::int AS exited
        FROM (${spans}) s
        CROSS JOIN LATERAL unnest(s.days) AS u(span)
        CROSS JOIN LATERAL (VALUES (lower(u.span), s.sign, 0), (upper(u.span), 0, s.sign)) AS e(day, entered, exited)
       WHERE e.day IS NOT NULL
       GROUP BY 1, 2, 3
      HAVING (sum(e.entered), sum(e.exited)) <> (0, 0)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The thresholds the spans are written for: the service's ATTENTION_FAILED_CHECKS and
    -- ATTENTION_UNCHECKED_DAYS, set by kept_rules_set(); the counts are used only while they agree.
    CREATE TABLE kept_rule_settings (
      only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      failed_checks  integer NOT NULL CHECK (failed_checks > 0),
      unchecked_days integer NOT NULL CHECK (unchecked_days > 0)
    );
    INSERT INTO kept_rule_settings (failed_checks, unchecked_days) VALUES (2, 60);
    COMMENT ON TABLE kept_rule_settings IS 'The thresholds kept_rule_riders is written for; set by kept_rules_set() (migration 023).';

    -- A moment's day in a zone, and the days from one to another (none when the first is not before it).
    CREATE FUNCTION kept_day(at timestamptz, zone text) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN (at AT TIME ZONE zone)::date;
    CREATE FUNCTION kept_days(from_day date, until_day date) RETURNS daterange LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE WHEN until_day IS NULL OR from_day < until_day THEN daterange(from_day, until_day) END;

    CREATE TABLE kept_rule_riders (
      rule       text            NOT NULL,
      rider_id   bigint          NOT NULL,
      company_id bigint          NOT NULL,
      days       datemultirange  NOT NULL CHECK (NOT isempty(days)),
      PRIMARY KEY (rider_id, rule)
    );
    COMMENT ON TABLE kept_rule_riders IS 'The days each rider is in each rider rule of Needs attention, as last added to kept_rule_days; kept by the applier (migration 023).';
    CREATE VIEW kept_rule_rider_docs AS
      SELECT x.rule, r.id AS rider_id, r.company_id, x.days
        -- One row each (LIMIT 1 tells the planner so, which then never compiles the plan for millions).
        FROM riders r CROSS JOIN (SELECT * FROM kept_rule_settings LIMIT 1) s CROSS JOIN (SELECT zone FROM rider_list_zone LIMIT 1) z
        -- Each source read once per rider: its gaps between checks, its items' exchange days, its items.
        CROSS JOIN LATERAL (
          SELECT range_agg(kept_days(kept_day(g.from_at, z.zone), kept_day(g.until_at, z.zone)))
                   FILTER (WHERE g.streak > 0 AND g.streak >= s.failed_checks) AS failing,
                 range_agg(kept_days(kept_day(g.from_at, z.zone) + s.unchecked_days, kept_day(g.until_at, z.zone))) AS unchecked
            FROM kept_check_gaps g WHERE g.rider_id = r.id) g
        CROSS JOIN LATERAL (
          SELECT range_agg(kept_days(kept_day(k.eligible_at, z.zone) + 1, kept_day(k.deleted_at, z.zone))) AS overdue
            FROM kept_assignment_days k WHERE k.rider_id = r.id) k
        CROSS JOIN LATERAL (
          SELECT range_agg(kept_days(kept_day(a.assigned_at, z.zone), kept_day(a.deleted_at, z.zone))) AS held
            FROM assignments a WHERE a.rider_id = r.id) a
        CROSS JOIN LATERAL (VALUES ('failing-checks', g.failing), ('overdue-items', k.overdue), ('unchecked', g.unchecked * a.held)) x(rule, days)
       WHERE NOT isempty(x.days);

    CREATE TABLE kept_rule_days (
      rule       text    NOT NULL,
      company_id bigint  NOT NULL,
      day        date    NOT NULL,
      entered    integer NOT NULL,
      exited     integer NOT NULL,
      PRIMARY KEY (rule, company_id, day)
    );
    COMMENT ON TABLE kept_rule_days IS 'Riders that entered and left each rider rule of Needs attention, per 3PL and day; kept by the applier (migration 023).';
    -- The rows a refresh brought to nothing, found without reading the others.
    CREATE INDEX kept_rule_days_zero_idx ON kept_rule_days (rule) WHERE entered = 0 AND exited = 0;
    CREATE VIEW kept_rule_day_docs AS ${dayEvents('SELECT rule, company_id, days, 1 AS sign FROM kept_rule_rider_docs')};

    -- These riders' days written afresh: the rows that changed go out of the day counts, the new ones in.
    -- (A few riders at a time: compiling a plan to machine code would cost more than running it.)
    CREATE FUNCTION kept_rules_refresh(ids bigint[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT
      SET jit = off AS $$
    BEGIN
      IF cardinality(ids) = 0 THEN RETURN; END IF;
      WITH fresh AS MATERIALIZED (SELECT * FROM kept_rule_rider_docs WHERE rider_id = ANY (ids)),
      was AS MATERIALIZED (SELECT * FROM kept_rule_riders WHERE rider_id = ANY (ids)),
      added AS MATERIALIZED (SELECT * FROM fresh EXCEPT ALL SELECT * FROM was),
      removed AS MATERIALIZED (SELECT * FROM was EXCEPT ALL SELECT * FROM fresh),
      deltas AS MATERIALIZED (${dayEvents('SELECT rule, company_id, days, 1 AS sign FROM added UNION ALL SELECT rule, company_id, days, -1 FROM removed')}
      ), changed AS (
        UPDATE kept_rule_days k SET entered = k.entered + d.entered, exited = k.exited + d.exited
          FROM deltas d WHERE (k.rule, k.company_id, k.day) = (d.rule, d.company_id, d.day)
      ), counted AS (
        INSERT INTO kept_rule_days SELECT * FROM deltas d
         WHERE NOT EXISTS (SELECT 1 FROM kept_rule_days k WHERE (k.rule, k.company_id, k.day) = (d.rule, d.company_id, d.day))
      ), gone AS (
        DELETE FROM kept_rule_riders k USING removed r
         WHERE (k.rider_id, k.rule) = (r.rider_id, r.rule) AND NOT EXISTS (SELECT 1 FROM added a WHERE (a.rider_id, a.rule) = (r.rider_id, r.rule))
      )
      INSERT INTO kept_rule_riders AS k SELECT * FROM added
        ON CONFLICT (rider_id, rule) DO UPDATE SET company_id = EXCLUDED.company_id, days = EXCLUDED.days;
      DELETE FROM kept_rule_days WHERE entered = 0 AND exited = 0;
    END $$;

    CREATE FUNCTION kept_rules_rebuild() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      LOCK TABLE kept_rule_riders, kept_rule_days IN EXCLUSIVE MODE;
      DELETE FROM kept_rule_riders;
      INSERT INTO kept_rule_riders SELECT * FROM kept_rule_rider_docs;
      DELETE FROM kept_rule_days;
      INSERT INTO kept_rule_days ${dayEvents('SELECT rule, company_id, days, 1 AS sign FROM kept_rule_riders')};
    END $$;

    -- Each batch of the applier writes afresh the days of the riders whose checks, items or row it wrote.
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

    -- Everything rebuilt at once (a bulk load, a TRUNCATE, a new zone) writes the days too, at the end.
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
    CREATE FUNCTION rider_list_zone_keep_rules() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM kept_rules_rebuild();
      RETURN NULL;
    END $$;
    -- After rider_list_zone_attention (triggers fire in the order of their names), which rewrites the exchange days.
    CREATE TRIGGER rider_list_zone_rules AFTER UPDATE ON rider_list_zone FOR EACH STATEMENT EXECUTE FUNCTION rider_list_zone_keep_rules();

    -- New thresholds: every rider's days written for them (seconds at 100,000 riders, a few minutes at 1,000,000).
    CREATE FUNCTION kept_rules_set(failed_checks integer, unchecked_days integer) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE kept_rule_settings s SET failed_checks = kept_rules_set.failed_checks, unchecked_days = kept_rules_set.unchecked_days
       WHERE (s.failed_checks, s.unchecked_days) IS DISTINCT FROM (kept_rules_set.failed_checks, kept_rules_set.unchecked_days);
      IF FOUND THEN PERFORM kept_rules_rebuild(); END IF;
    END $$;

    SELECT kept_rules_rebuild();
    ANALYZE kept_rule_riders, kept_rule_days;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION kept_rules_set(integer, integer);
    DROP TRIGGER rider_list_zone_rules ON rider_list_zone;
    DROP FUNCTION rider_list_zone_keep_rules();
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
    END $$;
    DROP FUNCTION kept_rules_rebuild(), kept_rules_refresh(bigint[]);
    DROP VIEW kept_rule_day_docs, kept_rule_rider_docs;
    DROP TABLE kept_rule_days, kept_rule_riders, kept_rule_settings;
    DROP FUNCTION kept_days(date, date), kept_day(timestamptz, text);
  `);
}

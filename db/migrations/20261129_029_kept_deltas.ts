import type { Knex } from 'knex';

// The kept data keeps up with its writers (issue 61). Until now a check or an exchange logged only its
// quarter of an hour, and the applier counted that quarter afresh over the whole fleet (and the UTC
// day of an exchange's quarter): 78 % of a batch of the writers' mix, and more as the fleet grows. A
// rider moved to another 3PL, or renamed, brought every quarter of its checks and exchanges, and every
// day of its exchanges, to be counted again.
//
// Now the writer's statement logs what it adds to the counts: per quarter and 3PL, the checks (and
// those passed) it inserted, less those it deleted; per quarter, 3PL and replacement type, the
// exchanges. The applier adds them up, so a batch's work grows with the changes it takes, not with the
// fleet. The 3PL of a count is the row's own 3PL (its list key, migration 011), which the applier
// corrects for rows written while their rider moved: that correction moves the rows' counts from one
// 3PL to the other. A rider renamed is logged as such ('N'): only its name's bigrams change.
//
// A count may be below zero for a moment: a batch may take a deletion before the insertion it undoes
// (the log is taken in its physical order), and the next batch brings it back. The counts' checks
// against zero go.
//
// The log is bounded when no service applies it: once it holds more than kept_log_state.max_rows rows
// (10,000,000 by default, about 700 MB; as the statistics count them), writers stop logging (per
// statement, one read of that row and of the statistics) and the next applier empties the log and
// rebuilds the kept data, after every transaction that may have skipped the log has ended.

/** The log triggers' guard: nothing while the applier writes, nothing once the log is full (see above). */
const guard = `IF current_setting('kept.applying', true) = 'on' OR NOT kept_logging() THEN RETURN NULL; END IF;`;

/** The functions this migration writes (run again as they are by a developer trying a change on a copy). */
export const FUNCTIONS = `
    -- The oldest transaction of this database still running, or this one's when none other is (a long
    -- transaction elsewhere on the server does not hold it back). Transaction ids in pg_locks have 32
    -- bits: made whole with this one's epoch. Prepared transactions (no session) count too.
    CREATE OR REPLACE FUNCTION kept_oldest_writer() RETURNS xid8 LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      mine bigint := pg_current_xact_id()::text::bigint;
      oldest bigint;
    BEGIN
      SELECT min(l.transactionid::text::bigint) INTO oldest
        FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid IS DISTINCT FROM pg_backend_pid()
         AND (l.pid IS NULL OR a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      IF oldest IS NULL THEN RETURN mine::text::xid8; END IF;
      RETURN ((mine >> 32 << 32) + oldest - CASE WHEN oldest > (mine & 4294967295) THEN 4294967296 ELSE 0 END)::text::xid8;
    END $$;

    -- Whether a writer logs: not once the log is full. The first writer to find it full says so, once.
    CREATE OR REPLACE FUNCTION kept_logging() RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      s kept_log_state;
    BEGIN
      SELECT * INTO s FROM kept_log_state;
      IF s.overflowed THEN RETURN false; END IF;
      -- The log's rows as the statistics count them (about a second behind): no scan, no lock.
      IF pg_stat_get_live_tuples('kept_changes'::regclass) <= s.max_rows THEN RETURN true; END IF;
      UPDATE kept_log_state SET overflowed = true WHERE NOT overflowed;
      RETURN false;
    END $$;

    CREATE OR REPLACE FUNCTION riders_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_LEVEL = 'ROW' THEN
        IF (NEW.id, NEW.company_id, NEW.country_id) = (OLD.id, OLD.company_id, OLD.country_id) THEN
          INSERT INTO kept_changes (kind, id) VALUES ('N', OLD.id);
          RETURN NULL;
        END IF;
        INSERT INTO kept_changes (kind, id) VALUES ('r', OLD.id);
        IF NEW.id <> OLD.id THEN INSERT INTO kept_changes (kind, id) VALUES ('r', NEW.id); END IF;
      ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM new_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'r', id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION assignments_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'h', rider_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id)
          SELECT 'h', rider_id FROM new_rows UNION SELECT 'h', rider_id FROM old_rows
          UNION
          SELECT 'k', n.id FROM new_rows n LEFT JOIN old_rows o ON o.id = n.id
           WHERE (o.rider_id, o.product_id, o.variation_id) IS DISTINCT FROM (n.rider_id, n.product_id, n.variation_id);
      END IF;
      RETURN NULL;
    END $$;

    -- A check's rider ('g': its gaps) and what it adds to its quarter's counts ('q').
    CREATE OR REPLACE FUNCTION patrol_checks_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), count(*), count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM new_rows GROUP BY 2, 3;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT DISTINCT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM old_rows
          UNION ALL
          SELECT 'q', company_id, kept_quarter(checked_at), -count(*), -count(*) FILTER (WHERE id_valid AND plate_valid AND sticker_valid)
            FROM old_rows GROUP BY 2, 3;
      ELSE
        INSERT INTO kept_changes (kind, id, at, n, m)
          SELECT 'g', rider_id, NULL::timestamptz, NULL::int, NULL::int FROM new_rows UNION SELECT 'g', rider_id, NULL, NULL, NULL FROM old_rows
          UNION ALL
          SELECT 'q', company_id, bucket, sum(sign)::int, sum(sign * passed)::int
            FROM (SELECT company_id, kept_quarter(checked_at) AS bucket, 1 AS sign, (id_valid AND plate_valid AND sticker_valid)::int AS passed FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(checked_at), -1, (id_valid AND plate_valid AND sticker_valid)::int FROM old_rows) d
           GROUP BY 2, 3 HAVING (sum(sign), sum(sign * passed)) <> (0, 0);
      END IF;
      RETURN NULL;
    END $$;

    -- An exchange's quarter, 3PL and replacement type, and how many it adds there ('x').
    CREATE OR REPLACE FUNCTION product_exchanges_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, count(*) FROM new_rows GROUP BY 2, 3, 4;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, kept_quarter(exchanged_at), replacement_type, -count(*) FROM old_rows GROUP BY 2, 3, 4;
      ELSE
        INSERT INTO kept_changes (kind, id, at, tag, n)
          SELECT 'x', company_id, bucket, replacement_type, sum(sign)::int
            FROM (SELECT company_id, kept_quarter(exchanged_at) AS bucket, replacement_type, 1 AS sign FROM new_rows
                  UNION ALL
                  SELECT company_id, kept_quarter(exchanged_at), replacement_type, -1 FROM old_rows) d
           GROUP BY 2, 3, 4 HAVING sum(sign) <> 0;
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION patrol_check_answers_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      ${guard}
      IF TG_OP = 'INSERT' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM new_rows;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO kept_changes (kind, id) SELECT DISTINCT 'c', check_id FROM old_rows;
      ELSE
        INSERT INTO kept_changes (kind, id) SELECT 'c', check_id FROM new_rows UNION SELECT 'c', check_id FROM old_rows;
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION catalog_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION truncate_log_kept_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF NOT kept_logging() THEN RETURN NULL; END IF;
      INSERT INTO kept_changes (kind) VALUES ('T');
      RETURN NULL;
    END $$;

    -- A rider's name bigrams written as a difference (migration 025 wrote them all afresh): a rider moved
    -- to another 3PL updates its rows' 3PL, a renamed one replaces the rows of its old name, and the
    -- riders per bigram change only where a rider's bigrams do.
    CREATE OR REPLACE FUNCTION kept_rider_name_grams_refresh(riders_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      IF cardinality(riders_) = 0 THEN RETURN; END IF;
      WITH fresh AS MATERIALIZED (
        SELECT DISTINCT b.gram, left(r.name, 500) AS name, r.id AS rider_id, r.name_key, r.company_id
          FROM riders r CROSS JOIN LATERAL unnest(rider_name_bigrams(r.name_key)) AS b(gram)
         WHERE r.id = ANY (riders_)
      ), was AS MATERIALIZED (
        SELECT gram, name, rider_id, name_key, company_id FROM kept_rider_name_grams WHERE rider_id = ANY (riders_)
      ), gone AS (
        -- (Set differences, hashed: an anti-join of two of these CTEs was a nested loop, quadratic.)
        DELETE FROM kept_rider_name_grams k
         USING (SELECT gram, name, rider_id FROM was EXCEPT SELECT gram, name, rider_id FROM fresh) d
         WHERE (k.gram, k.name, k.rider_id) = (d.gram, d.name, d.rider_id)
      ), put AS (
        INSERT INTO kept_rider_name_grams AS k
          SELECT * FROM (SELECT * FROM fresh EXCEPT SELECT * FROM was) d
          ON CONFLICT (gram, name, rider_id) DO UPDATE SET name_key = EXCLUDED.name_key, company_id = EXCLUDED.company_id
      ), counted AS (
        SELECT gram, sum(sign)::int AS riders
          FROM (SELECT gram, rider_id, 1 AS sign FROM fresh UNION ALL SELECT DISTINCT gram, rider_id, -1 FROM was) d
         GROUP BY gram HAVING sum(sign) <> 0
      ), recounted AS (
        UPDATE kept_rider_name_gram_counts k SET riders = k.riders + c.riders FROM counted c WHERE k.gram = c.gram
      )
      -- (Not ON CONFLICT: the row it would insert is held to the table's check, and a count may fall.)
      INSERT INTO kept_rider_name_gram_counts (gram, riders)
        SELECT gram, riders FROM counted c WHERE NOT EXISTS (SELECT 1 FROM kept_rider_name_gram_counts k WHERE k.gram = c.gram);
      DELETE FROM kept_rider_name_gram_counts WHERE riders = 0;
    END $$;

    -- The counts per quarter (and UTC day) plus what the log's rows of this batch add.
    CREATE OR REPLACE FUNCTION kept_add_counts(deltas kept_changes[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      check_buckets timestamptz[];
      exchange_buckets timestamptz[];
    BEGIN
      WITH d AS (SELECT * FROM unnest(deltas)), cq AS (
        INSERT INTO kept_check_quarters AS k (bucket, company_id, checks, passed)
          SELECT at, id, sum(n), sum(m) FROM d WHERE kind = 'q' GROUP BY 1, 2
          ON CONFLICT (bucket, company_id) DO UPDATE SET checks = k.checks + EXCLUDED.checks, passed = k.passed + EXCLUDED.passed
          RETURNING bucket
      ), xq AS (
        INSERT INTO kept_exchange_quarters AS k (bucket, company_id, replacement_type, exchanges)
          SELECT at, id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (bucket, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING bucket
      ), xd AS (
        INSERT INTO kept_exchange_days AS k (day, company_id, replacement_type, exchanges)
          SELECT kept_utc_day(at), id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (day, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
      )
      SELECT (SELECT array_agg(bucket) FROM cq), (SELECT array_agg(bucket) FROM xq) INTO check_buckets, exchange_buckets;
      IF check_buckets IS NOT NULL THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_buckets) AND checks = 0 AND passed = 0;
      END IF;
      IF exchange_buckets IS NOT NULL THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_buckets) AND exchanges = 0;
        DELETE FROM kept_exchange_days
         WHERE day = ANY (ARRAY(SELECT DISTINCT kept_utc_day(b) FROM unnest(exchange_buckets) b)) AND exchanges = 0;
      END IF;
    END $$;

    -- The list keys of these riders' rows and of these assignments' returns and exchanges, where they
    -- differ from what they copy (rows written while their rider moved), and the counts of the checks
    -- and exchanges whose 3PL that corrects moved from one 3PL to the other.
    CREATE OR REPLACE FUNCTION kept_apply_list_keys(riders_ bigint[], checked bigint[], assignments_ bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      deltas kept_changes[];
      exchanges bigint[];
    BEGIN
      WITH was AS MATERIALIZED (
        SELECT t.id, t.company_id FROM patrol_checks t JOIN riders r ON r.id = t.rider_id
         WHERE r.id = ANY (checked) AND t.company_id IS DISTINCT FROM r.company_id
      ), fixed AS (
        UPDATE patrol_checks t SET company_id = r.company_id FROM riders r, was w
         WHERE w.id = t.id AND r.id = t.rider_id AND t.company_id IS DISTINCT FROM r.company_id
        RETURNING w.company_id AS was, t.company_id AS now, kept_quarter(t.checked_at) AS bucket,
                  (t.id_valid AND t.plate_valid AND t.sticker_valid)::int AS passed
      )
      SELECT array_agg(ROW('q', company_id, bucket, NULL, n, m, NULL)::kept_changes) INTO deltas
        FROM (SELECT company_id, bucket, sum(sign)::int AS n, sum(sign * passed)::int AS m
                FROM (SELECT was AS company_id, bucket, -1 AS sign, passed FROM fixed
                      UNION ALL SELECT now, bucket, 1, passed FROM fixed) s
               WHERE company_id IS NOT NULL GROUP BY 1, 2) d;
      UPDATE assignments t SET company_id = r.company_id FROM riders r
       WHERE r.id = ANY (riders_) AND t.rider_id = r.id AND t.company_id IS DISTINCT FROM r.company_id;
      -- Returns and exchanges as their views define them, read from each rider's items by index (an item
      -- given to another rider is in assignments_, its row logged by the UPDATE that moved it).
      UPDATE product_returns t SET rider_id = a.rider_id, company_id = r.company_id, product_id = a.product_id, variation_id = a.variation_id
        FROM assignments a JOIN riders r ON r.id = a.rider_id
       WHERE a.rider_id = ANY (riders_) AND t.assignment_id = a.id
         AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (a.rider_id, r.company_id, a.product_id, a.variation_id);
      -- The exchanges of these riders' items and of these items: ids first, each read by its index.
      exchanges := ARRAY(
        SELECT id FROM product_exchanges
         WHERE old_assignment_id = ANY (ARRAY(SELECT id FROM assignments WHERE rider_id = ANY (riders_)) || assignments_)
        UNION SELECT id FROM product_exchanges WHERE new_assignment_id = ANY (assignments_));
      IF cardinality(exchanges) > 0 THEN
        WITH was AS MATERIALIZED (
          SELECT id, company_id FROM product_exchanges WHERE id = ANY (exchanges)
        ), fixed AS (
          UPDATE product_exchanges t SET rider_id = d.rider_id, company_id = d.company_id,
                 old_product_id = d.old_product_id, old_variation_id = d.old_variation_id,
                 new_product_id = d.new_product_id, new_variation_id = d.new_variation_id
            FROM was w, product_exchange_list_key_docs d
           WHERE t.id = ANY (exchanges) AND d.id = ANY (exchanges) AND w.id = t.id AND d.id = t.id
             AND (t.rider_id, t.company_id, t.old_product_id, t.old_variation_id, t.new_product_id, t.new_variation_id)
                 IS DISTINCT FROM (d.rider_id, d.company_id, d.old_product_id, d.old_variation_id, d.new_product_id, d.new_variation_id)
          RETURNING w.company_id AS was, t.company_id AS now, kept_quarter(t.exchanged_at) AS bucket, t.replacement_type
        )
        SELECT coalesce(deltas, '{}') || coalesce(array_agg(ROW('x', company_id, bucket, NULL, n, NULL, replacement_type)::kept_changes), '{}')
          INTO deltas
          FROM (SELECT company_id, bucket, replacement_type, sum(sign)::int AS n
                  FROM (SELECT was AS company_id, bucket, replacement_type, -1 AS sign FROM fixed WHERE was IS DISTINCT FROM now
                        UNION ALL SELECT now, bucket, replacement_type, 1 FROM fixed WHERE was IS DISTINCT FROM now) s
                 WHERE company_id IS NOT NULL GROUP BY 1, 2, 3) d;
      END IF;
      IF cardinality(assignments_) > 0 THEN
        UPDATE product_returns t SET rider_id = d.rider_id, company_id = d.company_id, product_id = d.product_id, variation_id = d.variation_id
          FROM product_return_list_key_docs d
         WHERE t.assignment_id = ANY (assignments_) AND d.id = t.id
           AND (t.rider_id, t.company_id, t.product_id, t.variation_id) IS DISTINCT FROM (d.rider_id, d.company_id, d.product_id, d.variation_id);
      END IF;
      IF cardinality(deltas) > 0 THEN PERFORM kept_add_counts(deltas); END IF;
    END $$;

    -- The counts per quarter and day from their definitions, in one statement: the log's counts
    -- committed before it are in what it reads, and go; those committed after it stay, to be added.
    CREATE OR REPLACE FUNCTION kept_counts_rebuild() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      LOCK TABLE kept_check_quarters, kept_exchange_quarters, kept_exchange_days IN EXCLUSIVE MODE;
      DELETE FROM kept_check_quarters;
      DELETE FROM kept_exchange_quarters;
      DELETE FROM kept_exchange_days;
      WITH gone AS (DELETE FROM kept_changes WHERE kind IN ('q', 'x')),
      xq AS (INSERT INTO kept_exchange_quarters SELECT * FROM kept_exchange_quarter_docs),
      xd AS (INSERT INTO kept_exchange_days SELECT * FROM kept_exchange_day_docs)
      INSERT INTO kept_check_quarters SELECT * FROM kept_check_quarter_docs;
    END $$;

    -- Every kept table from its definition, and the log emptied first (so that a change committed while
    -- the rebuild reads stays in it): the counts last, with the log's counts (see kept_counts_rebuild).
    CREATE OR REPLACE FUNCTION kept_rebuild() RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET kept.applying = 'on' AS $$
    BEGIN
      DELETE FROM kept_changes WHERE kind NOT IN ('q', 'x');
      PERFORM riders_recount_items();
      PERFORM list_keys_rebuild();
      PERFORM patrol_check_questioners_rebuild();
      PERFORM rider_list_blocks_rebuild();
      PERFORM rider_list_entries_rebuild();
      PERFORM kept_attention_rebuild();
      PERFORM kept_riders_rebuild();
      PERFORM kept_rules_rebuild();
      PERFORM kept_rider_name_grams_rebuild();
      PERFORM kept_counts_rebuild();
    END $$;


    -- Takes up to \`batch\` rows of the log and writes what they name, in this transaction. Returns how
    -- many rows it took (0: the log is empty), or -1 when another session is applying (one at a time).
    -- A lock held by a writer for longer than lock_timeout ends the batch with an error (55P03): it is
    -- rolled back, its rows stay in the log, and the next call tries again.
    CREATE OR REPLACE FUNCTION kept_apply(batch integer DEFAULT 1000) RETURNS integer LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET lock_timeout = '200ms' SET kept.applying = 'on'
      -- Each statement planned for the ids at hand: a plan made once for any array may read whole tables.
      -- No JIT: a batch's statements are short, and compiling them cost more than it saved.
      SET plan_cache_mode = force_custom_plan SET jit = off AS $$
    DECLARE
      state kept_log_state;
      taken integer;
      truncated boolean;
      deltas kept_changes[];
      horizon xid8;
      settled bigint[];
      riders_ bigint[]; held bigint[]; checked bigint[]; moved_items bigint[]; answered bigint[]; entries bigint[]; renamed bigint[];
      products_ bigint[]; variations bigint[]; companies_ bigint[]; countries_ bigint[]; questions_ bigint[];
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('kept_apply', 0)) THEN RETURN -1; END IF;

      -- The log overflowed: what it holds goes (the rebuild will write it all), and writers log again
      -- from this commit on; the rebuild waits until every transaction that may have skipped the log
      -- has ended (those running when the next batch begins).
      SELECT * INTO state FROM kept_log_state;
      IF state.overflowed THEN
        UPDATE kept_log_state SET overflowed = false, rebuild = true, rebuild_waits_for = NULL;
        DELETE FROM kept_changes;
        PERFORM pg_stat_force_next_flush(); -- the log's emptiness, in the statistics writers read, at this commit
        RETURN batch;
      ELSIF state.rebuild AND state.rebuild_waits_for IS NULL THEN
        -- The transactions of this database running now (each holds the lock of its own id).
        UPDATE kept_log_state SET rebuild_waits_for = ARRAY(
          SELECT l.transactionid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.pid <> pg_backend_pid()
             AND a.datid = (SELECT oid FROM pg_database WHERE datname = current_database()));
      ELSIF state.rebuild AND NOT EXISTS (
              SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = ANY (state.rebuild_waits_for)) THEN
        UPDATE kept_log_state SET rebuild = false, rebuild_waits_for = NULL;
        PERFORM kept_rebuild();
        RETURN batch;
      END IF;

      WITH taken AS (
        DELETE FROM kept_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM kept_changes LIMIT batch)) RETURNING *
      )
      SELECT count(*), bool_or(kind = 'T'),
             array_agg(ROW(t.kind, t.id, t.at, t.logged_at, t.n, t.m, t.tag)::kept_changes) FILTER (WHERE kind IN ('q', 'x')),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'r'), array_agg(DISTINCT id) FILTER (WHERE kind = 'h'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'g'), array_agg(DISTINCT id) FILTER (WHERE kind = 'k'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'c'), array_agg(DISTINCT id) FILTER (WHERE kind = 'e'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'N'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'p'), array_agg(DISTINCT id) FILTER (WHERE kind = 'v'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'o'), array_agg(DISTINCT id) FILTER (WHERE kind = 'n'),
             array_agg(DISTINCT id) FILTER (WHERE kind = 'Q')
        INTO taken, truncated, deltas, riders_, held, checked, moved_items, answered, entries, renamed,
             products_, variations, companies_, countries_, questions_
        FROM taken t;
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

      PERFORM rider_list_entries_refresh_unlocked(entries);
      PERFORM kept_assignment_days_refresh_riders(held);
      PERFORM kept_check_gaps_refresh_unlocked(checked);
      PERFORM patrol_check_questioners_refresh_unlocked(coalesce(answered, '{}'));
      IF deltas IS NOT NULL THEN PERFORM kept_add_counts(deltas); END IF;
      -- Last, the rows writers also lock (their riders and their rows' list keys): held from here to the
      -- commit only, so a writer never waits on this batch for long.
      -- A moved rider's rows are checked again with each later batch that names it, until no transaction
      -- of this database that may have written one with the old 3PL can still be running (every one that
      -- could had its id before this batch had its own: \`until\`); then once more, and it leaves
      -- kept_moved_riders.
      INSERT INTO kept_moved_riders AS k (rider_id, until)
        SELECT DISTINCT unnest(riders_), pg_current_xact_id()
        ON CONFLICT (rider_id) DO UPDATE SET until = EXCLUDED.until;
      settled := '{}';
      IF EXISTS (SELECT 1 FROM kept_moved_riders WHERE rider_id <> ALL (riders_)) THEN
        horizon := kept_oldest_writer();
        WITH settling AS (
          DELETE FROM kept_moved_riders WHERE rider_id IN (
            SELECT rider_id FROM kept_moved_riders WHERE until < horizon LIMIT 1000)
          RETURNING rider_id)
        SELECT coalesce(array_agg(rider_id), '{}') INTO settled FROM settling;
      END IF;
      PERFORM kept_apply_list_keys(
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (held)) || settled,
        ARRAY(SELECT rider_id FROM kept_moved_riders WHERE rider_id = ANY (checked)) || settled,
        moved_items);
      PERFORM kept_apply_riders(held);
      PERFORM kept_rules_refresh(held || checked);
      PERFORM kept_rider_name_grams_refresh(riders_ || coalesce(renamed, '{}'));
      RETURN taken;
    END $$;

`;

export async function up(knex: Knex): Promise<void> {
  // What the log holds in the old form (quarters to count afresh) is applied by the old function first.
  await knex.raw(`SELECT kept_apply_all()`);
  await knex.raw(`
    ALTER TABLE kept_changes ADD COLUMN n integer, ADD COLUMN m integer, ADD COLUMN tag text;
    COMMENT ON COLUMN kept_changes.n IS 'q, x: checks or exchanges added (less those removed) in the quarter "at" for the 3PL "id"';
    COMMENT ON COLUMN kept_changes.m IS 'q: checks passed, added less removed';
    COMMENT ON COLUMN kept_changes.tag IS 'x: the exchanges'' replacement type';
    ALTER TABLE kept_check_quarters DROP CONSTRAINT kept_check_quarters_checks_check, DROP CONSTRAINT kept_check_quarters_passed_check;
    ALTER TABLE kept_exchange_quarters DROP CONSTRAINT kept_exchange_quarters_exchanges_check;
    ALTER TABLE kept_exchange_days DROP CONSTRAINT kept_exchange_days_exchanges_check;

    -- Until when a moved rider's rows are checked again (kept_apply()): riders moved before this have
    -- nothing left to wait for.
    ALTER TABLE kept_moved_riders ADD COLUMN until xid8 NOT NULL DEFAULT '0';
    ALTER TABLE kept_moved_riders ALTER COLUMN until DROP DEFAULT;
    COMMENT ON TABLE kept_moved_riders IS 'Riders moved to another 3PL lately: kept_apply() checks their rows'' list keys until no writer that read the old 3PL can still be running (until); kept by kept_apply().';

    -- The log's bound, and the state of a rebuild it asks for.
    CREATE TABLE kept_log_state (
      one          boolean PRIMARY KEY DEFAULT true CHECK (one),
      max_rows     bigint  NOT NULL DEFAULT 10000000 CHECK (max_rows > 0),
      overflowed   boolean NOT NULL DEFAULT false,
      -- After an overflow: a rebuild to come, once the transactions it waits for (those of this database
      -- running just after the log reopened; NULL: not noted yet) have ended.
      rebuild      boolean NOT NULL DEFAULT false,
      rebuild_waits_for xid[]
    );
    COMMENT ON TABLE kept_log_state IS 'The change log''s bound (max_rows: writers stop logging beyond it, and the kept data is rebuilt) (migration 029).';
    INSERT INTO kept_log_state DEFAULT VALUES;

    DROP FUNCTION kept_apply_quarters(timestamptz[], timestamptz[]);
    ${FUNCTIONS}
  `);
}

// The quarters' recounts this replaces are gone with their functions: going back is restoring a backup
// taken before it (docs/OPERATIONS.md, "Migrations").
export async function down(): Promise<void> {
  throw new Error('Migration 029 (kept counts as deltas) cannot be undone: restore the backup taken before it.');
}

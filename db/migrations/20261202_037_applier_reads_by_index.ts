import type { Knex } from 'knex';

// Two statements of the applier read a whole kept table on every batch, as the planner judged it at
// 100,000 riders (each batch's ids in one array, planned for them: migration 029):
// - kept_rules_refresh() read the riders' rules as they were applied (kept_rule_riders) by a sequential
//   scan of all of them, 50 to 80 ms a batch, where one look-up of its index per rider takes 4 ms. The
//   ids are now made distinct once and joined to the table by its key, one look-up each.
// - kept_add_counts() removed the counts per quarter that fell to zero by looking for them among every
//   bucket the batch changed: a moved rider's checks change hundreds of old quarters, and the DELETE read
//   the whole of kept_check_quarters (30 to 50 ms). It now removes only the rows its own upserts
//   returned at zero (most batches: none), for the checks', the exchanges' quarters and the exchanges'
//   days alike.
// What each writes is unchanged.

export const FUNCTIONS = `
    -- These riders' rules written afresh; the ids made distinct, so that each is one look-up of the key.
    CREATE OR REPLACE FUNCTION kept_rules_refresh(ids bigint[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT SET jit = off AS $$
    BEGIN
      IF cardinality(ids) = 0 THEN RETURN; END IF;
      ids := ARRAY(SELECT DISTINCT unnest(ids));
      WITH fresh AS MATERIALIZED (SELECT * FROM kept_rule_rider_docs WHERE rider_id = ANY (ids)),
      was AS MATERIALIZED (SELECT k.* FROM unnest(ids) AS i(id) JOIN kept_rule_riders k ON k.rider_id = i.id),
      added AS MATERIALIZED (SELECT * FROM fresh EXCEPT ALL SELECT * FROM was),
      removed AS MATERIALIZED (SELECT * FROM was EXCEPT ALL SELECT * FROM fresh),
      deltas AS MATERIALIZED (
      SELECT s.rule, s.company_id, e.day, sum(e.entered)::int AS entered, sum(e.exited)::int AS exited
        FROM (SELECT rule, company_id, days, 1 AS sign FROM added UNION ALL SELECT rule, company_id, days, -1 FROM removed) s
        CROSS JOIN LATERAL unnest(s.days) AS u(span)
        CROSS JOIN LATERAL (VALUES (lower(u.span), s.sign, 0), (upper(u.span), 0, s.sign)) AS e(day, entered, exited)
       WHERE e.day IS NOT NULL
       GROUP BY 1, 2, 3
      HAVING (sum(e.entered), sum(e.exited)) <> (0, 0)
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

    -- What the batch adds to the counts per quarter and day; the rows it leaves at zero are removed.
    CREATE OR REPLACE FUNCTION kept_add_counts(deltas kept_changes[]) RETURNS void LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      check_zeros timestamptz[];
      exchange_zeros timestamptz[];
      day_zeros date[];
    BEGIN
      WITH d AS (SELECT * FROM unnest(deltas)), cq AS (
        INSERT INTO kept_check_quarters AS k (bucket, company_id, checks, passed)
          SELECT at, id, sum(n), sum(m) FROM d WHERE kind = 'q' GROUP BY 1, 2
          ON CONFLICT (bucket, company_id) DO UPDATE SET checks = k.checks + EXCLUDED.checks, passed = k.passed + EXCLUDED.passed
          RETURNING bucket, (checks, passed) = (0, 0) AS zero
      ), xq AS (
        INSERT INTO kept_exchange_quarters AS k (bucket, company_id, replacement_type, exchanges)
          SELECT at, id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (bucket, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING bucket, exchanges = 0 AS zero
      ), xd AS (
        INSERT INTO kept_exchange_days AS k (day, company_id, replacement_type, exchanges)
          SELECT kept_utc_day(at), id, tag, sum(n) FROM d WHERE kind = 'x' GROUP BY 1, 2, 3
          ON CONFLICT (day, company_id, replacement_type) DO UPDATE SET exchanges = k.exchanges + EXCLUDED.exchanges
          RETURNING day, exchanges = 0 AS zero
      )
      SELECT (SELECT array_agg(DISTINCT bucket) FROM cq WHERE zero), (SELECT array_agg(DISTINCT bucket) FROM xq WHERE zero),
             (SELECT array_agg(DISTINCT day) FROM xd WHERE zero)
        INTO check_zeros, exchange_zeros, day_zeros;
      IF check_zeros IS NOT NULL THEN
        DELETE FROM kept_check_quarters WHERE bucket = ANY (check_zeros) AND checks = 0 AND passed = 0;
      END IF;
      IF exchange_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_quarters WHERE bucket = ANY (exchange_zeros) AND exchanges = 0;
      END IF;
      IF day_zeros IS NOT NULL THEN
        DELETE FROM kept_exchange_days WHERE day = ANY (day_zeros) AND exchanges = 0;
      END IF;
    END $$;
`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(FUNCTIONS);
}

// The functions before this migration are migration 023's kept_rules_refresh() and migration 029's
// kept_add_counts(); both write the same rows as these.
export async function down(): Promise<void> {
  throw new Error('Migration 037 (the applier reads by index) cannot be undone: restore the backup taken before it.');
}

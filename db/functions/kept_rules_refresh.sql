-- The function public.kept_rules_refresh, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rules_refresh(ids bigint[]) ──
CREATE OR REPLACE FUNCTION public.kept_rules_refresh(ids bigint[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
  SET jit = off
AS $$
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

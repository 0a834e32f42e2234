-- The function public.kept_rules_rebuild, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rules_rebuild() ──
CREATE OR REPLACE FUNCTION public.kept_rules_rebuild() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      LOCK TABLE kept_rule_riders, kept_rule_days IN EXCLUSIVE MODE;
      DELETE FROM kept_rule_riders;
      INSERT INTO kept_rule_riders SELECT * FROM kept_rule_rider_docs;
      DELETE FROM kept_rule_days;
      INSERT INTO kept_rule_days 
      SELECT s.rule, s.company_id, e.day, sum(e.entered)::int AS entered, sum(e.exited)::int AS exited
        FROM (SELECT rule, company_id, days, 1 AS sign FROM kept_rule_riders) s
        CROSS JOIN LATERAL unnest(s.days) AS u(span)
        CROSS JOIN LATERAL (VALUES (lower(u.span), s.sign, 0), (upper(u.span), 0, s.sign)) AS e(day, entered, exited)
       WHERE e.day IS NOT NULL
       GROUP BY 1, 2, 3
      HAVING (sum(e.entered), sum(e.exited)) <> (0, 0);
    END $$;

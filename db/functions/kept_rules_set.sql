-- The function public.kept_rules_set, as the migrations leave it now.
-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is
-- a new migration; a test fails until this file is written again).

-- ── public.kept_rules_set(failed_checks integer, unchecked_days integer) ──
CREATE OR REPLACE FUNCTION public.kept_rules_set(failed_checks integer, unchecked_days integer) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = "$user", public
AS $$
    BEGIN
      UPDATE kept_rule_settings s SET failed_checks = kept_rules_set.failed_checks, unchecked_days = kept_rules_set.unchecked_days
       WHERE (s.failed_checks, s.unchecked_days) IS DISTINCT FROM (kept_rules_set.failed_checks, kept_rules_set.unchecked_days);
      IF FOUND THEN PERFORM kept_rules_rebuild(); END IF;
    END $$;

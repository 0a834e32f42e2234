// Migration 008's kept data per rider and per item: the gaps between a rider's checks, and each assignment's exchange day.

/** Sections 1 and 2: kept_check_gaps and kept_assignment_days, their views and their refreshes. */
export const GAPS_AND_DAYS = `
    -- 1. Gaps between checks ------------------------------------------------------------------------
    CREATE TABLE kept_check_gaps (
      rider_id     bigint      NOT NULL,
      check_id     bigint,
      from_at      timestamptz NOT NULL,
      until_at     timestamptz,
      streak       integer     NOT NULL CHECK (streak >= 0),
      streak_start timestamptz
    );
    COMMENT ON TABLE kept_check_gaps IS 'Per rider, the time from each patrol check (or -infinity) to the next, with the failed checks in a row ending at it; kept by triggers.';
    CREATE INDEX kept_check_gaps_rider_idx ON kept_check_gaps (rider_id);
    -- (from_at, until_at]: the check is before the moment, the next one at or after it.
    -- With the columns the rules count by, so counting reads the index alone.
    CREATE INDEX kept_check_gaps_span_idx ON kept_check_gaps USING gist (tstzrange(from_at, until_at, '(]')) INCLUDE (rider_id);
    CREATE INDEX kept_check_gaps_failing_idx ON kept_check_gaps USING gist (tstzrange(from_at, until_at, '(]')) INCLUDE (rider_id, streak)
      WHERE streak > 0;

    CREATE VIEW kept_check_gap_docs AS
      WITH marked AS (
        SELECT pc.rider_id, pc.id, pc.checked_at,
               NOT (pc.id_valid AND pc.plate_valid AND pc.sticker_valid) AS failed,
               lead(pc.checked_at) OVER (PARTITION BY pc.rider_id ORDER BY pc.checked_at, pc.id) AS next_at,
               sum((pc.id_valid AND pc.plate_valid AND pc.sticker_valid)::int)
                 OVER (PARTITION BY pc.rider_id ORDER BY pc.checked_at, pc.id) AS passes
          FROM patrol_checks pc
      ), streaks AS (
        SELECT m.*,
               count(*) FILTER (WHERE m.failed) OVER (PARTITION BY m.rider_id, m.passes ORDER BY m.checked_at, m.id) AS streak,
               min(m.checked_at) FILTER (WHERE m.failed) OVER (PARTITION BY m.rider_id, m.passes) AS streak_start
          FROM marked m
      )
      SELECT r.id AS rider_id, NULL::bigint AS check_id, '-infinity'::timestamptz AS from_at,
             (SELECT min(pc.checked_at) FROM patrol_checks pc WHERE pc.rider_id = r.id) AS until_at,
             0 AS streak, NULL::timestamptz AS streak_start
        FROM riders r
      UNION ALL
      SELECT s.rider_id, s.id, s.checked_at, s.next_at,
             CASE WHEN s.failed THEN s.streak::int ELSE 0 END,
             CASE WHEN s.failed THEN s.streak_start END
        FROM streaks s;

    CREATE FUNCTION kept_check_gaps_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_check_gaps WHERE rider_id = ANY (ids);
      INSERT INTO kept_check_gaps SELECT * FROM kept_check_gap_docs WHERE rider_id = ANY (ids);
    $$;

    -- 2. Exchange days ------------------------------------------------------------------------------
    CREATE TABLE kept_assignment_days (
      assignment_id bigint      PRIMARY KEY,
      rider_id      bigint      NOT NULL,
      eligible_at   timestamptz NOT NULL,
      deleted_at    timestamptz
    );
    COMMENT ON TABLE kept_assignment_days IS 'Each assignment''s exchange day (in the zone of rider_list_zone) and return; kept by triggers.';
    -- Items that were ever past their exchange day while held, by that day: "past it at the end of T"
    -- reads them in order (longest overdue first) up to T's start and keeps those held at T's end.
    CREATE INDEX kept_assignment_days_overdue_idx ON kept_assignment_days (eligible_at, assignment_id) INCLUDE (deleted_at, rider_id)
      WHERE deleted_at IS NULL OR deleted_at > eligible_at;

    CREATE VIEW kept_assignment_day_docs AS
      SELECT a.id AS assignment_id, a.rider_id,
             ((a.assigned_at AT TIME ZONE z.zone) + p.exchange_after_days * interval '1 day') AT TIME ZONE z.zone AS eligible_at,
             a.deleted_at
        FROM assignments a
        JOIN products p ON p.id = a.product_id
        CROSS JOIN rider_list_zone z;

    CREATE FUNCTION kept_assignment_days_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM kept_assignment_days WHERE assignment_id = ANY (ids);
      INSERT INTO kept_assignment_days SELECT * FROM kept_assignment_day_docs WHERE assignment_id = ANY (ids);
    $$;`;

import type { Knex } from 'knex';

// "Needs attention" as a work queue: what supervisors record when they handle a listed row. It is the
// service's own data, beside the sessions in the access schema; the domain tables stay read-only.
//
// A handling covers one subject of one rule (a rider; a 3PL for "losses") up to the newest evidence
// the rule showed when it was recorded (`evidence_at`: the failing rider's last check, the latest
// exchange day of the rider's overdue items, the check a rider has not had since, the latest quarter
// of an hour with a Lost or Accident exchange). The row stays off the rule's list while the rule's
// evidence for that subject is no newer and `until` (a day, inclusive) has not passed. Undo keeps the
// row, marked undone, so the rider's history shows who did what.
//
// And indexes for the rules' lists (src/rules/), each in the order of the check that
// opens a gap, with what "failing" and "not checked lately" read of it, so that a page of either rule
// is read in order and stops after its rows, and a count stops at its cap: each rider's open gap (no
// check since the last; today's answer), the same of riders whose last check failed (also in the order
// of when their failures in a row began, the list's other sort), and every gap
// (a past day's: the gaps still open then, read back from that day).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.attention_handled (
      id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      rule          text        NOT NULL CHECK (rule IN ('failing-checks', 'overdue-items', 'losses', 'unchecked')),
      subject_id    bigint      NOT NULL,
      evidence_at   timestamptz NOT NULL,
      note          text        NOT NULL CHECK (btrim(note) <> '' AND length(note) <= 2000),
      until         date,
      handled_by    bigint      NOT NULL REFERENCES access.supervisors,
      handled_at    timestamptz NOT NULL DEFAULT now(),
      undone_by     bigint      REFERENCES access.supervisors,
      undone_at     timestamptz,
      CHECK ((undone_at IS NULL) = (undone_by IS NULL))
    );
    COMMENT ON TABLE access.attention_handled IS 'Supervisors'' notes on rows of Needs attention: the service''s own data.';
    -- Whether a listed row is handled: one probe per row, by rule and subject.
    CREATE INDEX attention_handled_live_idx ON access.attention_handled (rule, subject_id, evidence_at) WHERE undone_at IS NULL;
    -- A rule's handled view, newest first; a rider's history.
    CREATE INDEX attention_handled_rule_idx ON access.attention_handled (rule, id);
    CREATE INDEX attention_handled_subject_idx ON access.attention_handled (subject_id, id);

    CREATE INDEX kept_check_gaps_open_idx ON kept_check_gaps (from_at, rider_id) INCLUDE (check_id, streak, streak_start) WHERE until_at IS NULL;
    CREATE INDEX kept_check_gaps_open_failing_idx ON kept_check_gaps (from_at, rider_id) INCLUDE (check_id, streak, streak_start)
      WHERE until_at IS NULL AND streak > 0;
    CREATE INDEX kept_check_gaps_open_failing_since_idx ON kept_check_gaps (streak_start, rider_id) INCLUDE (check_id, from_at, streak)
      WHERE until_at IS NULL AND streak > 0;
    CREATE INDEX kept_check_gaps_from_idx ON kept_check_gaps (from_at, rider_id) INCLUDE (check_id, until_at, streak, streak_start);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX kept_check_gaps_open_idx;
    DROP INDEX kept_check_gaps_open_failing_idx;
    DROP INDEX kept_check_gaps_open_failing_since_idx;
    DROP INDEX kept_check_gaps_from_idx;
    DROP TABLE access.attention_handled;
  `);
}

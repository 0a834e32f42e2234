import type { Knex } from 'knex';

// Supervisors' notes that mark nothing handled (src/rules/notes.ts): a note written on a rider (from the
// rider's page, or a note whose row left "Needs attention" while it was typed), or written beside another
// supervisor's handling (a row handled meanwhile). The service's own data: written, never rewritten.
// rider_id names no foreign key: the riders are the company's, and their writers must not wait on us.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.supervisor_notes (
      id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      rider_id    bigint,
      handling_id bigint      REFERENCES access.attention_handled,
      rule        text        CHECK (rule IN ('failing-checks', 'overdue-items', 'losses', 'unchecked')),
      note        text        NOT NULL CHECK (btrim(note) <> '' AND length(note) <= 2000),
      written_by  bigint      NOT NULL REFERENCES access.supervisors,
      written_at  timestamptz NOT NULL DEFAULT now(),
      CHECK (rider_id IS NOT NULL OR handling_id IS NOT NULL)
    );
    COMMENT ON TABLE access.supervisor_notes IS 'Supervisors'' notes on a rider or beside a handling (migration 032).';
    CREATE INDEX supervisor_notes_rider_idx ON access.supervisor_notes (rider_id, id) WHERE rider_id IS NOT NULL;
    CREATE INDEX supervisor_notes_handling_idx ON access.supervisor_notes (handling_id, id) WHERE handling_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE access.supervisor_notes');
}

import type { Knex } from 'knex';

// Handling many rows of a rule at once: the rows ticked on a page, or every row the filters select, with
// one note and an optional "until" day. A batch is one row here and one handling per row it covered
// (access.attention_handled.batch_id), written in one statement (src/rules/handling.ts); each handling
// obeys migration 020's index like any other (a row handled meanwhile is left out and not counted),
// and Undo of the batch undoes its handlings that are still live, at once.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.attention_batches (
      id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      rule        text        NOT NULL,
      note        text        NOT NULL CHECK (btrim(note) <> '' AND length(note) <= 2000),
      until       date,
      handled_by  bigint      NOT NULL REFERENCES access.supervisors,
      handled_at  timestamptz NOT NULL DEFAULT now(),
      rows        integer     NOT NULL CHECK (rows >= 0),
      undone_by   bigint      REFERENCES access.supervisors,
      undone_at   timestamptz,
      CHECK ((undone_at IS NULL) = (undone_by IS NULL))
    );
    COMMENT ON TABLE access.attention_batches IS 'Rows of Needs attention handled at once with one note (migration 021).';
    ALTER TABLE access.attention_handled ADD COLUMN batch_id bigint REFERENCES access.attention_batches;
    CREATE INDEX attention_handled_batch_idx ON access.attention_handled (batch_id) WHERE batch_id IS NOT NULL;
    CREATE INDEX attention_batches_rule_idx ON access.attention_batches (rule, id) WHERE undone_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE access.attention_handled DROP COLUMN batch_id;
    DROP TABLE access.attention_batches;
  `);
}

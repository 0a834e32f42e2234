import type { Knex } from 'knex';

// Who works on a row of "Needs attention": a lead gives a row, or a batch of rows, to a supervisor
// (src/rules/owners.ts). One owner per rule and subject (a rider), replaced when given again and
// kept when the row is handled, so it is the same person when the row comes back; a handling records
// whom its row was given to at the time (attention_handled.assigned_to).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.attention_owners (
      rule        text        NOT NULL,
      subject_id  bigint      NOT NULL,
      assigned_to bigint      NOT NULL REFERENCES access.supervisors,
      assigned_by bigint      NOT NULL REFERENCES access.supervisors,
      assigned_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (rule, subject_id)
    );
    COMMENT ON TABLE access.attention_owners IS 'Which supervisor works on a row of Needs attention (migration 022).';
    CREATE INDEX attention_owners_assigned_to_idx ON access.attention_owners (assigned_to, rule, subject_id);
    ALTER TABLE access.attention_handled ADD COLUMN assigned_to bigint REFERENCES access.supervisors;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE access.attention_handled DROP COLUMN assigned_to;
    DROP TABLE access.attention_owners;
  `);
}

import type { Knex } from 'knex';

// Who gave which row of "Needs attention" to whom, and when (src/rules/owners.ts assignRows): each give or
// take-back recorded, as attention_owners keeps only the current owner. The rider page's history shows them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.attention_gives (
      id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      rule        text        NOT NULL CHECK (rule IN ('failing-checks', 'overdue-items', 'unchecked')),
      subject_id  bigint      NOT NULL,
      given_to    bigint      REFERENCES access.supervisors,
      given_by    bigint      NOT NULL REFERENCES access.supervisors,
      given_at    timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE access.attention_gives IS 'Each row of Needs attention given to a supervisor, or taken back (given_to NULL) (migration 033).';
    CREATE INDEX attention_gives_subject_idx ON access.attention_gives (subject_id, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE access.attention_gives');
}

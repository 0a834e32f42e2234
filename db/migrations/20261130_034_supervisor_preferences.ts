import type { Knex } from 'knex';

// A supervisor's own choices (src/admin/preferences.ts): how the pages look (the system's light or dark,
// or always one of them). One row per supervisor, written when they choose.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE access.supervisor_preferences (
      supervisor_id bigint      PRIMARY KEY REFERENCES access.supervisors,
      theme         text        NOT NULL DEFAULT 'system' CHECK (theme IN ('system', 'light', 'dark')),
      updated_at    timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE access.supervisor_preferences IS 'Each supervisor''s choices: the pages'' theme (migration 034).';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE access.supervisor_preferences');
}

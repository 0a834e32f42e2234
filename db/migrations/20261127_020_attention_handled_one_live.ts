import type { Knex } from 'knex';

// At most one live handling per row of "Needs attention", held by the database. A handling is live
// until it is undone or superseded: a new handling of the same rule and subject, recorded when the
// row came back (newer evidence, or its "until" day passed), supersedes the one before it in the same
// statement (src/rules/handling.ts). Two saves of one row at once (a double click, two tabs, two
// supervisors) then meet this index: the first is stored, the second stores nothing and is told who
// handled the row and when. A superseded handling still counts for the days before it was superseded,
// so a past day's queue reads as it was.
//
// Rows stored twice before this migration: the newest of each rule and subject stays live; each older
// one is superseded when the next was recorded.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE access.attention_handled ADD COLUMN superseded_at timestamptz;
    COMMENT ON COLUMN access.attention_handled.superseded_at IS 'When a newer handling of the same rule and subject replaced this one (migration 020).';
    UPDATE access.attention_handled h SET superseded_at = n.next_at
      FROM (SELECT id, lead(handled_at) OVER (PARTITION BY rule, subject_id ORDER BY id) AS next_at
              FROM access.attention_handled WHERE undone_at IS NULL) n
     WHERE n.id = h.id AND n.next_at IS NOT NULL;
    ALTER TABLE access.attention_handled ADD CHECK (superseded_at IS NULL OR undone_at IS NULL);
    CREATE UNIQUE INDEX attention_handled_one_live_idx ON access.attention_handled (rule, subject_id)
      WHERE undone_at IS NULL AND superseded_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX access.attention_handled_one_live_idx;
    ALTER TABLE access.attention_handled DROP COLUMN superseded_at;
  `);
}

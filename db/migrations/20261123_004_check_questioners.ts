import type { Knex } from 'knex';

// The Questioner array of each patrol check, kept as JSON text by triggers. Building it takes a
// check's 10 to 20 answers, their questions and a json_build_object per answer: three quarters of
// the work of a patrol check answer. Stored, a check reads its array with one index lookup.
//
// The view patrol_check_questioner_docs is the one definition of the array; the triggers and the
// bulk rebuild write what it returns. Nothing in the array depends on the session (no dates), so the
// stored text is what the view would give any reader. A check without answers has no row: readers
// use '[]'.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE VIEW patrol_check_questioner_docs AS
      SELECT ans.check_id,
             json_agg(json_build_object(
               'question', q.text,
               'answer', ans.answer,
               'imageUrl', ans.image_url,
               'score', ans.score::text,
               'category', q.category) ORDER BY ans.position) AS doc
        FROM patrol_check_answers ans
        JOIN questions q ON q.id = ans.question_id
       GROUP BY ans.check_id;

    CREATE TABLE patrol_check_questioners (
      check_id bigint PRIMARY KEY REFERENCES patrol_checks ON DELETE CASCADE,
      doc      json   NOT NULL
    );

    -- Writes the arrays of these checks afresh from the view (and drops those left without answers).
    -- As the owner (SECURITY DEFINER): whoever may write answers or questions keeps the arrays right
    -- without a grant on this table of its own.
    CREATE FUNCTION patrol_check_questioners_refresh(ids bigint[]) RETURNS void LANGUAGE sql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DELETE FROM patrol_check_questioners WHERE check_id = ANY (ids);
      INSERT INTO patrol_check_questioners (check_id, doc)
        SELECT check_id, doc FROM patrol_check_questioner_docs WHERE check_id = ANY (ids);
    $$;

    -- Bulk loaders disable the answer triggers and call this once afterwards.
    CREATE FUNCTION patrol_check_questioners_rebuild() RETURNS void LANGUAGE sql AS $$
      DELETE FROM patrol_check_questioners;
      INSERT INTO patrol_check_questioners (check_id, doc) SELECT check_id, doc FROM patrol_check_questioner_docs;
    $$;

    -- One statement-level function for the three answer triggers: each names its transition tables.
    CREATE FUNCTION patrol_check_answers_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM patrol_check_questioners_refresh(ARRAY(SELECT DISTINCT check_id FROM new_rows));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM patrol_check_questioners_refresh(ARRAY(SELECT DISTINCT check_id FROM old_rows));
      ELSE
        PERFORM patrol_check_questioners_refresh(ARRAY(SELECT check_id FROM new_rows UNION SELECT check_id FROM old_rows));
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER patrol_check_answers_insert_questioner
      AFTER INSERT ON patrol_check_answers REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh();
    CREATE TRIGGER patrol_check_answers_update_questioner
      AFTER UPDATE ON patrol_check_answers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh();
    CREATE TRIGGER patrol_check_answers_delete_questioner
      AFTER DELETE ON patrol_check_answers REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_refresh();

    CREATE FUNCTION patrol_check_answers_truncate_questioners() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path FROM CURRENT AS $$
    BEGIN
      -- Skipped when the same statement truncated it already (a TRUNCATE of both tables).
      IF EXISTS (SELECT 1 FROM patrol_check_questioners) THEN
        TRUNCATE patrol_check_questioners;
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER patrol_check_answers_truncate_questioner
      AFTER TRUNCATE ON patrol_check_answers
      FOR EACH STATEMENT EXECUTE FUNCTION patrol_check_answers_truncate_questioners();

    -- A question's text or category is part of every answer to it.
    CREATE FUNCTION questions_refresh_questioners() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM patrol_check_questioners_refresh(ARRAY(
        SELECT DISTINCT ans.check_id
          FROM patrol_check_answers ans
          JOIN new_rows n ON n.id = ans.question_id
          JOIN old_rows o ON o.id = n.id
         WHERE (n.text, n.category) IS DISTINCT FROM (o.text, o.category)));
      RETURN NULL;
    END $$;

    CREATE TRIGGER questions_refresh_questioners
      AFTER UPDATE ON questions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION questions_refresh_questioners();

    SELECT patrol_check_questioners_rebuild();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER questions_refresh_questioners ON questions;
    DROP TRIGGER patrol_check_answers_truncate_questioner ON patrol_check_answers;
    DROP TRIGGER patrol_check_answers_delete_questioner ON patrol_check_answers;
    DROP TRIGGER patrol_check_answers_update_questioner ON patrol_check_answers;
    DROP TRIGGER patrol_check_answers_insert_questioner ON patrol_check_answers;
    DROP FUNCTION questions_refresh_questioners(), patrol_check_answers_truncate_questioners(),
      patrol_check_answers_refresh(), patrol_check_questioners_rebuild(), patrol_check_questioners_refresh(bigint[]);
    DROP TABLE patrol_check_questioners;
    DROP VIEW patrol_check_questioner_docs;
  `);
}

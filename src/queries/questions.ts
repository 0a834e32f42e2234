import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import { defineParams, type ParamValues } from '../filters/define';
import { jsonObject } from '../wire/shape';
import { Question } from '../wire/shapes';
import { jsonColumn } from '../wire/sql-fragments';

export const params = defineParams({
  country_id: {
    type: 'bigint',
    column: 'q.country_id',
    label: 'Country ID',
    description: "Only the questions of this country's questionnaire.",
  },
});

export type Filters = ParamValues<typeof params>;

export function filtered(values: Filters) {
  return applyFilters(sql('questions as q'), params, values);
}

/** The contract's Question object with its answers in their order, ordered by question_id. */
export function wire(values: Filters) {
  return filtered(values)
    .select(jsonColumn(jsonObject(Question)))
    .orderBy('q.id');
}

// ---------------------------------------------------------------------------------------------
// Admin pages: a country's questionnaire as rows to render, one row per answer for CSV, and the
// countries to choose from.

/** Questions matching the filters, each with its answers in order, ordered by id. */
export function adminQuestions(values: Filters) {
  return filtered(values)
    .select(
      'q.id',
      'q.text',
      'q.question_type',
      'q.category',
      sql.raw(`COALESCE((
        SELECT json_agg(json_build_object(
          'position', qa.position, 'name', qa.name, 'name_ar', qa.name_ar, 'score', qa.score,
          'jump', qa.jump, 'skip', to_json(qa.skip)) ORDER BY qa.position)
        FROM question_answers qa WHERE qa.question_id = q.id), '[]'::json) AS answers`),
    )
    .orderBy('q.id');
}

/** One row per answer (a question without answers gives one row with empty answer fields). */
export function adminAnswerRows(values: Filters) {
  return filtered(values)
    .join('countries as co', 'co.id', 'q.country_id')
    .leftJoin('question_answers as qa', 'qa.question_id', 'q.id')
    .select(
      'co.code as country',
      'q.id as question_id',
      'q.text as question',
      'q.question_type',
      'q.category',
      'qa.position',
      'qa.name as answer',
      'qa.name_ar as answer_ar',
      'qa.score',
      'qa.jump',
      sql.raw(`array_to_string(qa.skip, ' ') AS skip`),
    )
    .orderBy([{ column: 'q.id' }, { column: 'qa.position' }]);
}

/** Every country with how many questions its questionnaire has. */
export function countries() {
  return sql('countries as co')
    .leftJoin('questions as q', 'q.country_id', 'co.id')
    .groupBy('co.id', 'co.code', 'co.name')
    .select('co.id', 'co.code', 'co.name', sql.raw('count(q.id) AS questions'))
    .orderBy('co.name');
}

import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import { defineParams, type ParamValues } from '../filters/define';
import { jsonColumn } from './sql-fragments';

export const params = defineParams({
  country_id: { type: 'bigint', column: 'q.country_id', label: 'Country ID', description: "Only the questions of this country's questionnaire." },
});

export type Filters = ParamValues<typeof params>;

export function filtered(values: Filters) {
  return applyFilters(sql('questions as q'), params, values);
}

/** The contract's Question object with its answers in their order, ordered by question_id. */
export function wire(values: Filters) {
  return filtered(values)
    .select(jsonColumn(`json_build_object(
      'question_id', q.id,
      'question', q.text,
      'question_type', q.question_type,
      'answers', COALESCE((
        SELECT json_agg(json_build_object(
          'jump', qa.jump,
          'name', qa.name,
          'skip', to_json(qa.skip),
          'score', qa.score::text,
          'name_ar', qa.name_ar) ORDER BY qa.position)
        FROM question_answers qa WHERE qa.question_id = q.id), '[]'::json))`))
    .orderBy('q.id');
}

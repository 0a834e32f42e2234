import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, type ParamValues } from '../filters/define';
import { datetime, dayFirst, jsonColumn } from './sql-fragments';

export const params = defineParams({
  tpatroller_id: { type: 'bigint', column: 'pc.patroller_id', label: 'Patroller ID', description: 'Only checks made by this patroller.' },
  rider_id: { type: 'bigint', column: 'pc.rider_id', label: 'Rider ID', description: 'Only checks of this rider.' },
  check_date_from: { type: 'date', column: 'pc.checked_at', op: 'fromDay', label: 'Checked from', description: 'Checks on or after this day (inclusive).' },
  check_date_to: { type: 'date', column: 'pc.checked_at', op: 'toDay', from: 'check_date_from', label: 'Checked to', description: 'Checks on or before this day (inclusive: the whole day counts).' },
  is_validation: { type: 'boolean', column: 'pc.id_valid', label: 'ID valid', description: 'ID validation passed (1) or failed (0).' },
  license_plate: { type: 'boolean', column: 'pc.plate_valid', label: 'Plate valid', description: 'License plate validation passed (1) or failed (0).' },
  sticker_validation: { type: 'boolean', column: 'pc.sticker_valid', label: 'Sticker valid', description: 'Sticker validation passed (1) or failed (0).' },
});

export type Filters = ParamValues<typeof params> & Scope;

/** Patrol checks matching the filters, with their rider and 3PL joined; no columns chosen yet. */
export function filtered(values: Filters) {
  const builder = sql('patrol_checks as pc')
    .join('riders as r', 'r.id', 'pc.rider_id')
    .join('companies as c', 'c.id', 'r.company_id');
  return applyScope(applyFilters(builder, params, values), values);
}

const reportedItems = `COALESCE((
  SELECT json_agg(json_build_object(
    'imageUrl', i.image_url,
    'gearName', p.name || ' - ' || v.name,
    'gearBaseName', p.name,
    'gearVariationName', v.name,
    'gearId', p.id::text,
    'variationId', v.id::text,
    'gearAssignedOn', ${dayFirst('a.assigned_at')},
    'eligibleForExchange', ${dayFirst("a.assigned_at + p.exchange_after_days * interval '1 day'")},
    'itemStatus', i.status,
    'categoryId', p.category_id,
    'categoryName', cat.name) ORDER BY i.position)
  FROM patrol_check_items i
  JOIN assignments a ON a.id = i.assignment_id
  JOIN products p ON p.id = a.product_id
  JOIN product_variations v ON v.id = a.variation_id
  JOIN product_categories cat ON cat.id = p.category_id
  WHERE i.check_id = pc.id), '[]'::json)`;

const questioner = `COALESCE((
  SELECT json_agg(json_build_object(
    'question', q.text,
    'answer', ans.answer,
    'imageUrl', ans.image_url,
    'score', ans.score::text,
    'category', q.category) ORDER BY ans.position)
  FROM patrol_check_answers ans
  JOIN questions q ON q.id = ans.question_id
  WHERE ans.check_id = pc.id), '[]'::json)`;

/** The contract's Patrol check object, one JSON text per row, ordered by ID. */
export function wire(values: Filters) {
  return filtered(values)
    .select(jsonColumn(`json_build_object(
      'ID', pc.id,
      'Rider_ID', pc.rider_id,
      'Rider_name', r.name,
      '3PL', c.name,
      'Tpatroller_ID', pc.patroller_id,
      'Check_date', ${datetime('pc.checked_at')},
      'ID_validation', pc.id_valid::int,
      'License_plate', pc.plate_valid::int,
      'Reported_item', ${reportedItems},
      'Questioner', ${questioner},
      'Sticker_validation', pc.sticker_valid::int,
      'Fake_ID_note', json_build_object('note', pc.fake_id_note, 'images', to_json(pc.fake_id_images)))`))
    .orderBy('pc.id');
}

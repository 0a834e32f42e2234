import type { Knex } from 'knex';
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

// Kept as JSON text per check by triggers (migration 004): the answers' questions need no join here.
const questioner = `COALESCE((SELECT pcq.doc FROM patrol_check_questioners pcq WHERE pcq.check_id = pc.id), '[]'::json)`;

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

// ---------------------------------------------------------------------------------------------
// Admin pages: the API's filters plus the rider's 3PL, the list columns, a sort allow-list, one
// check in full, and the home page's figures. All built on filtered(), so the rules stay one.

export const adminParams = defineParams({
  ...params,
  '3pl': { type: 'text', column: 'c.name', label: '3PL', description: 'Only checks of riders of this 3PL company (exact, case-sensitive).' },
});

export type AdminFilters = ParamValues<typeof adminParams> & Scope;

export function adminFiltered(values: AdminFilters) {
  return applyFilters(filtered(values), adminParams, values, ['3pl']);
}

/** Columns the list may be sorted by, by their URL name; pc.id breaks ties. */
export const adminSorts = {
  checked_at: { column: 'pc.checked_at' },
  id: { column: 'pc.id' },
  rider_id: { column: 'pc.rider_id' },
  '3pl': { column: 'c.name' },
  tpatroller_id: { column: 'pc.patroller_id' },
};
export const adminTieBreak = 'pc.id';

const passed = 'pc.id_valid AND pc.plate_valid AND pc.sticker_valid';

/** The list's columns, added to a builder from adminFiltered(). */
export function adminColumns(builder: Knex.QueryBuilder) {
  return builder
    .join('patrollers as pt', 'pt.id', 'pc.patroller_id')
    .select(
      'pc.id',
      sql.raw(`${datetime('pc.checked_at')} AS checked_at`),
      'pc.rider_id',
      'r.name as rider_name',
      'c.name as company',
      'pc.patroller_id',
      'pt.name as patroller_name',
      'pc.id_valid',
      'pc.plate_valid',
      'pc.sticker_valid',
      sql.raw('(SELECT sum(ans.score) FROM patrol_check_answers ans WHERE ans.check_id = pc.id) AS score'),
      sql.raw('(SELECT count(*) FROM patrol_check_items i WHERE i.check_id = pc.id) AS items'),
    );
}

/** One check with its answers and reported items, in the wire's nested shapes. */
export function adminCheck(id: string, scope: Scope = {}) {
  return adminColumns(filtered(scope))
    .where('pc.id', id)
    .select('pc.fake_id_note', 'pc.fake_id_images', sql.raw(`${reportedItems} AS reported_items`), sql.raw(`${questioner} AS answers`));
}

/** The newest check's day and today's, both in the session's time zone. */
export function latestCheckDay(scope: Scope = {}) {
  // Unscoped, max() reads the end of the date index; scoped, it needs the riders joined.
  return (scope.company_id ? filtered(scope) : sql('patrol_checks as pc')).select(
    sql.raw(`to_char(max(pc.checked_at), 'YYYY-MM-DD') AS latest`),
    sql.raw(`to_char(current_date, 'YYYY-MM-DD') AS today`),
  );
}

/** Checks and passed checks (all three validations) per 3PL over [from30, to], and over [from7, to]. */
export function passRatesBy3pl(days: { from30: string; from7: string; to: string }, scope: Scope = {}) {
  return filtered({ ...scope, check_date_from: days.from30, check_date_to: days.to })
    .groupBy('c.name')
    .orderBy('c.name')
    .select(
      'c.name as company',
      sql.raw('count(*) FILTER (WHERE pc.checked_at >= ?::date::timestamptz) AS checks_7', [days.from7]),
      sql.raw(`count(*) FILTER (WHERE pc.checked_at >= ?::date::timestamptz AND ${passed}) AS passed_7`, [days.from7]),
      sql.raw('count(*) AS checks_30'),
      sql.raw(`count(*) FILTER (WHERE ${passed}) AS passed_30`),
    );
}

/** Checks and passed checks per calendar day over [from, to]; days without checks are absent. */
export function checksPerDay(days: { from: string; to: string }, scope: Scope = {}) {
  const day = `to_char(pc.checked_at, 'YYYY-MM-DD')`;
  return filtered({ ...scope, check_date_from: days.from, check_date_to: days.to })
    .groupByRaw(day)
    .orderByRaw(day)
    .select(sql.raw(`${day} AS day`), sql.raw('count(*) AS checks'), sql.raw(`count(*) FILTER (WHERE ${passed}) AS passed`));
}

/** Printable reports: the checks of these riders up to the end of `asOf` (all without it), oldest first. */
export function reportRows(riderIds: readonly string[], scope: Scope, asOf?: string) {
  return adminColumns(filtered({ ...scope, check_date_to: asOf }))
    .whereIn('pc.rider_id', riderIds)
    .orderBy([{ column: 'pc.rider_id' }, { column: 'pc.checked_at' }, { column: 'pc.id' }]);
}

import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyFilters, withOwnFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, enumParam, hookParam, type ParamValues } from '../filters/define';
import { company, dayRange, PASSED_FAILED, riderId } from '../filters/common';
import { jsonObject } from '../wire/shape';
import { PatrolCheck, questionerOfCheck, reportedItemsOfCheck } from '../wire/shapes';
import { datetime, jsonColumn } from '../wire/sql-fragments';
import { checkQuarters, endOfDay, startOfDay } from './kept-counts';
import { bigintKey, byCompany, timeKey, type ListSort } from './keyset';
import { keptKeys } from './list-keys';

export const params = defineParams({
  tpatroller_id: {
    type: 'bigint',
    column: 'pc.patroller_id',
    label: 'Patroller ID',
    description: 'Only checks made by this patroller.',
    form: { label: 'Patroller', placeholder: 'Name or ID', lookup: 'patroller' },
  },
  rider_id: riderId('pc.rider_id', 'Only checks of this rider.'),
  ...dayRange('check_date', 'pc.checked_at', 'Checked', 'Checks'),
  is_validation: {
    type: 'boolean',
    column: 'pc.id_valid',
    label: 'ID valid',
    description: 'ID validation passed (1) or failed (0).',
    form: { choices: PASSED_FAILED },
  },
  license_plate: {
    type: 'boolean',
    column: 'pc.plate_valid',
    label: 'Plate valid',
    description: 'License plate validation passed (1) or failed (0).',
    form: { choices: PASSED_FAILED },
  },
  sticker_validation: {
    type: 'boolean',
    column: 'pc.sticker_valid',
    label: 'Sticker valid',
    description: 'Sticker validation passed (1) or failed (0).',
    form: { choices: PASSED_FAILED },
  },
});

export type Filters = ParamValues<typeof params> & Scope;

/** Checks with their rider and 3PL. */
const joined = () => sql('patrol_checks as pc').join('riders as r', 'r.id', 'pc.rider_id').join('companies as c', 'c.id', 'r.company_id');

/** Patrol checks matching the filters, with their rider and 3PL joined; no columns chosen yet. */
export function filtered(values: Filters) {
  return applyScope(applyFilters(joined(), params, values), values);
}

/** The contract's Patrol check object, one JSON text per row, ordered by ID. */
export function wire(values: Filters) {
  return filtered(values)
    .select(jsonColumn(jsonObject(PatrolCheck)))
    .orderBy('pc.id');
}

// ---------------------------------------------------------------------------------------------
// Admin pages: the API's filters plus the rider's 3PL, the list columns, a sort allow-list, one
// check in full, and the home page's figures. All built on filtered(), so the rules stay one.

/** A check passes when its ID, plate and sticker validations all pass (as the overview counts, migration 008). */
export const CHECK_PASSED = '(pc.id_valid AND pc.plate_valid AND pc.sticker_valid)';
/** Written as migration 013's partial index is, so the planner matches it. */
export const CHECK_FAILED = `NOT ${CHECK_PASSED}`;

/** A check's result as the list's filter takes it and its select offers it. */
export const CHECK_RESULTS = [
  { value: 'passed', label: 'Passed' },
  { value: 'failed', label: 'Failed' },
] as const;

export const { params: adminParams, filtered: adminFiltered } = withOwnFilters(
  params,
  {
    '3pl': company('c.name', 'checks of riders'),
    result: hookParam(
      enumParam(CHECK_RESULTS, {
        label: 'Result',
        description: 'passed: the ID, plate and sticker validations all passed; failed: at least one of them failed.',
      }),
      (builder, result) => builder.whereRaw(result === 'failed' ? CHECK_FAILED : CHECK_PASSED),
    ),
  },
  filtered,
);

export type AdminFilters = ParamValues<typeof adminParams> & Scope;

/** The list's rows for paging and counting: the same filters over the checks alone (the 3PL kept on each). */
function adminKeys(values: AdminFilters) {
  return keptKeys('patrol_checks as pc', adminParams, values, 'pc.company_id');
}

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
    .select(
      'pc.fake_id_note',
      'pc.fake_id_images',
      sql.raw(`${reportedItemsOfCheck} AS reported_items`),
      sql.raw(`${questionerOfCheck} AS answers`),
    );
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
  // From the checks kept per 3PL and quarter of an hour (migration 008), not from every check.
  const from7 = startOfDay(days.from7);
  return checkQuarters(startOfDay(days.from30), endOfDay(days.to), scope)
    .join('companies as c', 'c.id', 'q.company_id')
    .groupBy('c.name')
    .orderBy('c.name')
    .select(
      'c.name as company',
      sql.raw(`coalesce(sum(q.checks) FILTER (WHERE q.bucket >= ${from7.sql}), 0) AS checks_7`, from7.bindings),
      sql.raw(`coalesce(sum(q.passed) FILTER (WHERE q.bucket >= ${from7.sql}), 0) AS passed_7`, from7.bindings),
      sql.raw('sum(q.checks) AS checks_30'),
      sql.raw('sum(q.passed) AS passed_30'),
    );
}

/** Checks and passed checks per calendar day over [from, to]; days without checks are absent. */
export function checksPerDay(days: { from: string; to: string }, scope: Scope = {}) {
  // A quarter of an hour lies within one day in any time zone, so its day is its checks' day.
  const day = `to_char(q.bucket, 'YYYY-MM-DD')`;
  return checkQuarters(startOfDay(days.from), endOfDay(days.to), scope)
    .groupByRaw(day)
    .orderByRaw(day)
    .select(sql.raw(`${day} AS day`), sql.raw('sum(q.checks) AS checks'), sql.raw('sum(q.passed) AS passed'));
}

/** Printable reports: the checks of these riders up to the end of `asOf` (all without it), oldest first. */
export function reportRows(riderIds: readonly string[], scope: Scope, asOf?: string) {
  return (
    adminColumns(filtered({ ...scope, check_date_to: asOf }))
      .whereIn('pc.rider_id', riderIds)
      // The list again on riders: PostgreSQL carries an equality across the join, not an IN list, and
      // without it read all riders into a hash, a cost growing with the fleet, to join a batch's few.
      .whereIn('r.id', riderIds)
      .orderBy([{ column: 'pc.rider_id' }, { column: 'pc.checked_at' }, { column: 'pc.id' }])
  );
}

/** The admin list's source (src/admin/lists.ts): its filters, the builders that read it, its sorts. */
export const adminList = {
  filters: adminParams,
  filtered: adminFiltered,
  keys: adminKeys,
  joined,
  columns: adminColumns,
  /**
   * Sorts the list offers, by their URL name; pc.id breaks ties. Each is an index's order: by 3PL, then
   * date (the 3PL kept on each check, migration 011), as no index orders checks by another table's column.
   */
  sorts: {
    checked_at: { keys: [timeKey('pc.checked_at')] },
    id: { keys: [] },
    rider_id: { keys: [bigintKey('pc.rider_id')] },
    '3pl': byCompany([timeKey('pc.checked_at')], 'pc.company_id'),
    tpatroller_id: { keys: [bigintKey('pc.patroller_id')] },
  } satisfies Record<string, ListSort>,
  tieBreak: 'pc.id',
};

import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyFilters, withOwnFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, type ParamValues } from '../filters/define';
import { assignType, company, dayRange, riderId } from '../filters/common';
import { jsonObject } from '../wire/shape';
import { Assignment, RiderWithEquipment } from '../wire/shapes';
import { datetime, dayText, held, jsonColumn } from '../wire/sql-fragments';
import { bigintKey, byCompany, byProduct, timeKey, type ListSort } from './keyset';
import { keptKeys, withName } from './list-keys';

// Shared by /riders and /assign-list: both list the same assignment records.
export const params = defineParams({
  rider_id: riderId('a.rider_id', 'Only assignments of this rider.'),
  '3pl': company(),
  product_id: {
    type: 'bigint',
    column: 'a.product_id',
    label: 'Product ID',
    description: 'Only assignments of this product.',
    form: { label: 'Item', lookup: { item: 'item', variation: 'variation_id' } },
  },
  variation_id: {
    type: 'bigint',
    column: 'a.variation_id',
    label: 'Variation ID',
    description: 'Only assignments of this product variation.',
  },
  ...dayRange('assign_date', 'a.assigned_at', 'Assigned', 'Assigned'),
  assign_type: assignType('a.assign_method'),
});

/** /riders also accepts user_id, the name its original example used, for rider_id. */
export const riderParams = defineParams({
  ...params,
  user_id: { type: 'bigint', aliasOf: 'rider_id', label: 'Rider ID', description: 'Another name for rider_id; give only one of them.' },
});

export type Filters = ParamValues<typeof params> & Scope;

/** Assignments matching the filters with rider, 3PL, product, variation and assigning user joined. */
export function filtered(values: Filters) {
  return applyScope(applyFilters(joined(), params, values), values);
}

/** Assignments with their rider, 3PL, product, variation and assigning user (every assignment has each). */
const joined = () =>
  sql('assignments as a')
    .join('riders as r', 'r.id', 'a.rider_id')
    .join('companies as c', 'c.id', 'r.company_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .join('app_users as u', 'u.id', 'a.assigned_by');

/**
 * The contract's Assignment object, ordered by assign date then id: the assignments alone, in the order
 * of their date index (which carries what the answer reads: migration 026), with the 3PL kept on each
 * (migration 011) and the names of the few 3PLs, products, variations and users looked up (withName:
 * no join), so the first row leaves at once: a full answer streams from its first byte.
 */
export function wire(values: Filters) {
  const builder = keptKeys('assignments as a', params, values, 'a.company_id');
  withName(builder, 'c', 'companies', 'a.company_id');
  withName(builder, 'p', 'products', 'a.product_id');
  withName(builder, 'v', 'product_variations', 'a.variation_id');
  withName(builder, 'u', 'app_users', 'a.assigned_by');
  return builder.select(jsonColumn(jsonObject(Assignment))).orderBy([{ column: 'a.assigned_at' }, { column: 'a.id' }]);
}

/** The contract's Rider with equipment: one row per rider holding only its matching assignments. */
export function wireByRider(values: Filters) {
  return filtered(values)
    .select(jsonColumn(jsonObject(RiderWithEquipment)))
    .groupBy('r.id', 'c.name')
    .orderBy('r.id');
}

// ---------------------------------------------------------------------------------------------
// Admin pages: the API's filters plus "held now or returned", the list columns, a sort allow-list,
// and the home page's figures on equipment still held.

export const { params: adminParams, filtered: adminFiltered } = withOwnFilters(
  params,
  {
    active: {
      type: 'boolean',
      column: 'a.deleted_at',
      op: 'isNull',
      label: 'Held now',
      description: '1: only assignments still held; 0: only returned ones.',
      form: {
        choices: [
          { value: '1', label: 'Held now' },
          { value: '0', label: 'Returned' },
        ],
      },
    },
  },
  filtered,
);

export type AdminFilters = ParamValues<typeof adminParams> & Scope;

/** The list's rows for paging and counting: the same filters over the assignments alone (the 3PL kept on each). */
function adminKeys(values: AdminFilters) {
  return keptKeys('assignments as a', adminParams, values, 'a.company_id');
}

/** The list's columns, added to a builder from adminFiltered(). */
export function adminColumns(builder: Knex.QueryBuilder) {
  return builder.select(
    'a.id',
    sql.raw(`${datetime('a.assigned_at')} AS assigned_at`),
    'a.rider_id',
    'r.name as rider_name',
    'c.name as company',
    'a.product_id',
    'p.name as product_name',
    'a.variation_id',
    'v.name as variation_name',
    sql.raw(`${Assignment.fields['Assign Type'].sql} AS assign_method`),
    'a.assign_type',
    'u.name as assigned_by',
    sql.raw(`${datetime('a.deleted_at')} AS returned_at`),
  );
}

/** When an assignment becomes eligible for exchange: assigned, plus its product's exchange period. */
const ELIGIBLE_AT = "a.assigned_at + p.exchange_after_days * interval '1 day'";

/**
 * Adds to a builder from adminFiltered() the day each item becomes eligible for exchange and how many
 * days before today that was (`days_past`; 0 or less while not past): past it, as "Needs attention"
 * counts, when that day is before today (src/rules/overdue-items.ts).
 */
export function withExchangeDay(builder: Knex.QueryBuilder) {
  return builder.select(sql.raw(`${dayText(ELIGIBLE_AT)} AS eligible_on`), sql.raw(`(current_date - (${ELIGIBLE_AT})::date) AS days_past`));
}

/** Riders holding at least one item, items held, and all riders. */
export function holdingTotals(scope: Scope = {}) {
  // Kept per 3PL by triggers (migration 008).
  return applyScope(sql('kept_company_riders as k'), scope, 'k.company_id').select(
    sql.raw('coalesce(sum(k.riders_holding), 0) AS riders_holding'),
    sql.raw('coalesce(sum(k.items_held), 0) AS items_held'),
    sql.raw('coalesce(sum(k.riders), 0) AS riders'),
  );
}

/** Items still held, per product, most first. */
export function heldByProduct(scope: Scope = {}) {
  // Kept per 3PL and product by triggers (migration 008).
  return applyScope(sql('kept_held_items as k'), scope, 'k.company_id')
    .join('products as p', 'p.id', 'k.product_id')
    .groupBy('k.product_id', 'p.name')
    .havingRaw('sum(k.items) > 0')
    .select('k.product_id', 'p.name as product_name', sql.raw('sum(k.items) AS items'))
    .orderByRaw('sum(k.items) DESC, p.name');
}

// ---------------------------------------------------------------------------------------------
// Printable reports (src/reports): several riders at once, so a batch costs one query, not one per rider.

/** `(day + 1)` as the first instant after that day in the session's time zone, or now() without a day. */
const endOf = (asOf?: string) => (asOf ? sql.raw('(?::date + 1)::timestamptz', [asOf]) : sql.raw('now()'));

/**
 * Every assignment of these riders made up to the end of `asOf` (all of them without it), oldest
 * first, with the list's columns, the day it becomes eligible for exchange, whether it was eligible
 * then, and whether the rider still held it then (`held`): what a dispute about kit turns on.
 */
export function reportRows(riderIds: readonly string[], scope: Scope, asOf?: string) {
  return (
    adminColumns(filtered({ ...scope, assign_date_to: asOf }))
      .whereIn('a.rider_id', riderIds)
      // The list again on riders: PostgreSQL carries an equality across the join, not an IN list, and
      // without it read all riders into a hash, a cost growing with the fleet, to join a batch's few.
      .whereIn('r.id', riderIds)
      .select(
        sql.raw(`${dayText(ELIGIBLE_AT)} AS eligible_on`),
        sql.raw(`(${ELIGIBLE_AT} < ?) AS eligible`, [endOf(asOf)]),
        sql.raw(`${held.heldAt('?')} AS held`, [endOf(asOf)]),
      )
      .orderBy([{ column: 'a.rider_id' }, { column: 'a.assigned_at' }, { column: 'a.id' }])
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
   * Sorts the list offers, by their URL name; a.id breaks ties. Each is an index's order (rider, 3PL or
   * product, then assign date). Items held now (no return date) come last either way.
   */
  sorts: {
    assigned_at: { keys: [timeKey('a.assigned_at')] },
    rider_id: { keys: [bigintKey('a.rider_id'), timeKey('a.assigned_at')] },
    '3pl': byCompany([timeKey('a.assigned_at')], 'a.company_id'),
    product: byProduct('a.product_id', [timeKey('a.assigned_at')]),
    returned_at: {
      keys: {
        asc: [timeKey(`coalesce(a.deleted_at, 'infinity'::timestamptz)`)],
        desc: [timeKey(`coalesce(a.deleted_at, '-infinity'::timestamptz)`)],
      },
    },
  } satisfies Record<string, ListSort>,
  tieBreak: 'a.id',
};

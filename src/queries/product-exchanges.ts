import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { EVER, endOfDay, exchangesBetween, startOfDay } from './kept-counts';
import { applyFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, type ParamValues } from '../filters/define';
import { company, dayRange, REPLACEMENT_TYPES, riderId } from '../filters/common';
import { jsonObject } from '../wire/shape';
import { ProductExchange } from '../wire/shapes';
import { datetime, jsonColumn } from '../wire/sql-fragments';
import { bigintKey, byCompany, textKey, timeKey, type ListSort } from './keyset';
import { keptKeys, withName } from './list-keys';

export const params = defineParams({
  rider_id: riderId('oa.rider_id', 'Only exchanges by this rider.'),
  '3pl': company(),
  product_id: {
    type: 'bigint',
    column: 'oa.product_id',
    label: 'Old product ID',
    description: 'Only exchanges giving back this product.',
    form: { label: 'Gave back', lookup: { item: 'item', variation: 'variation_id' } },
  },
  variation_id: {
    type: 'bigint',
    column: 'oa.variation_id',
    label: 'Old variation ID',
    description: 'Only exchanges giving back this product variation.',
  },
  new_product_id: {
    type: 'bigint',
    column: 'na.product_id',
    label: 'New product ID',
    description: 'Only exchanges handing out this product.',
    form: { label: 'Received', lookup: { item: 'new_item', variation: 'new_variation_id' } },
  },
  new_variation_id: {
    type: 'bigint',
    column: 'na.variation_id',
    label: 'New variation ID',
    description: 'Only exchanges handing out this product variation.',
  },
  ...dayRange('exchange_date', 'e.exchanged_at', 'Exchanged', 'Exchanged'),
  exchange_type: {
    type: 'text',
    column: 'e.exchange_type',
    label: 'Exchange type',
    description: 'Only exchanges of this type (exact, case-sensitive).',
    form: { lookup: 'values' },
  },
  replacement_type: {
    type: 'enum',
    values: REPLACEMENT_TYPES,
    column: 'e.replacement_type',
    label: 'Replacement type',
    description: 'Lost, Accident or Exchange, exactly as written.',
  },
});

export type Filters = ParamValues<typeof params> & Scope;

export function filtered(values: Filters) {
  return applyScope(applyFilters(joined(), params, values), values);
}

/** Exchanges with both assignments, the rider, 3PL, products and variations (every exchange has each). */
const joined = () =>
  sql('product_exchanges as e')
    .join('assignments as oa', 'oa.id', 'e.old_assignment_id')
    .join('assignments as na', 'na.id', 'e.new_assignment_id')
    .join('riders as r', 'r.id', 'oa.rider_id')
    .join('companies as c', 'c.id', 'r.company_id')
    .join('products as op', 'op.id', 'oa.product_id')
    .join('product_variations as ov', 'ov.id', 'oa.variation_id')
    .join('products as np', 'np.id', 'na.product_id')
    .join('product_variations as nv', 'nv.id', 'na.variation_id');

/** The rider, 3PL and items of the assignments exchanged, kept on each exchange (migration 011). */
const KEPT = {
  'oa.rider_id': 'e.rider_id',
  'oa.product_id': 'e.old_product_id',
  'oa.variation_id': 'e.old_variation_id',
  'na.product_id': 'e.new_product_id',
  'na.variation_id': 'e.new_variation_id',
};

/** The list's rows for paging and counting: the same filters over the exchanges alone. */
function adminKeys(values: Filters) {
  return keptKeys('product_exchanges as e', params, values, 'e.company_id', KEPT);
}

/**
 * The contract's Product exchange object, ordered by exchange date then id: the exchanges alone, in the
 * order of their date index, with the 3PL and item names looked up from the kept ids (withName: no join).
 */
export function wire(values: Filters) {
  const builder = adminKeys(values);
  withName(builder, 'c', 'companies', 'e.company_id');
  withName(builder, 'op', 'products', 'e.old_product_id');
  withName(builder, 'ov', 'product_variations', 'e.old_variation_id');
  withName(builder, 'np', 'products', 'e.new_product_id');
  withName(builder, 'nv', 'product_variations', 'e.new_variation_id');
  return builder.select(jsonColumn(jsonObject(ProductExchange))).orderBy([{ column: 'e.exchanged_at' }, { column: 'e.id' }]);
}

// ---------------------------------------------------------------------------------------------
// Admin pages: the list columns, a sort allow-list, and the home page's counts.

/** The list's columns, added to a builder from filtered(). */
export function adminColumns(builder: Knex.QueryBuilder) {
  return builder
    .join('app_users as u', 'u.id', 'e.processed_by')
    .select(
      'e.id',
      sql.raw(`${datetime('e.exchanged_at')} AS exchanged_at`),
      'oa.rider_id',
      'r.name as rider_name',
      'c.name as company',
      'oa.product_id as old_product_id',
      'op.name as old_product_name',
      'oa.variation_id as old_variation_id',
      'ov.name as old_variation_name',
      'na.product_id as new_product_id',
      'np.name as new_product_name',
      'na.variation_id as new_variation_id',
      'nv.name as new_variation_name',
      'e.exchange_type',
      'e.replacement_type',
      'u.name as processed_by',
    );
}

/** Exchanges per replacement type up to `to` (inclusive): all of them, and those from `from` on. */
export function countsByReplacementType({ from, to }: { from: string; to: string }, scope: Scope = {}) {
  // From the exchanges kept per 3PL, type, UTC day and quarter of an hour (migration 008).
  const until = endOfDay(to);
  const all = sql.from(exchangesBetween(EVER, until, scope).as('x')).select('x.replacement_type', 'x.exchanges', sql.raw('0 AS recent'));
  const recent = sql
    .from(exchangesBetween(startOfDay(from), until, scope).as('y'))
    .select('y.replacement_type', sql.raw('0'), 'y.exchanges');
  return sql
    .from(sql.unionAll([all, recent], true).as('u'))
    .groupBy('u.replacement_type')
    .havingRaw('sum(u.exchanges) > 0')
    .orderBy('u.replacement_type')
    .select('u.replacement_type', sql.raw('sum(u.exchanges) AS exchanges'), sql.raw('sum(u.recent) AS recent'));
}

/** Printable reports: the exchanges of these riders up to the end of `asOf` (all without it), oldest first. */
export function reportRows(riderIds: readonly string[], scope: Scope, asOf?: string) {
  return (
    adminColumns(filtered({ ...scope, exchange_date_to: asOf }))
      .whereIn('oa.rider_id', riderIds)
      // The list again on riders: PostgreSQL carries an equality across the join, not an IN list, and
      // without it read all riders into a hash, a cost growing with the fleet, to join a batch's few.
      .whereIn('r.id', riderIds)
      .orderBy([{ column: 'oa.rider_id' }, { column: 'e.exchanged_at' }, { column: 'e.id' }])
  );
}

/** The admin list's source (src/admin/lists.ts): its filters, the builders that read it, its sorts. */
export const adminList = {
  filters: params,
  filtered: filtered,
  keys: adminKeys,
  joined,
  columns: adminColumns,
  /** Sorts the list offers, by their URL name; e.id breaks ties. Each is an index's order. */
  sorts: {
    exchanged_at: { keys: [timeKey('e.exchanged_at')] },
    rider_id: { keys: [bigintKey('e.rider_id')] },
    '3pl': byCompany([timeKey('e.exchanged_at')], 'e.company_id'),
    exchange_type: { keys: [textKey('e.exchange_type'), timeKey('e.exchanged_at')] },
    replacement_type: { keys: [textKey('e.replacement_type'), timeKey('e.exchanged_at')] },
  } satisfies Record<string, ListSort>,
  tieBreak: 'e.id',
};

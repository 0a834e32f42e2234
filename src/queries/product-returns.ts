import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, type ParamValues } from '../filters/define';
import { company, dayRange, riderId } from '../filters/common';
import { jsonObject } from '../wire/shape';
import { ProductReturn } from '../wire/shapes';
import { datetime, jsonColumn } from '../wire/sql-fragments';
import { bigintKey, byCompany, byProduct, textKey, timeKey, type ListSort } from './keyset';
import { keptKeys, withName } from './list-keys';

export const params = defineParams({
  rider_id: riderId('a.rider_id', 'Only returns by this rider.'),
  '3pl': company(),
  product_id: {
    type: 'bigint',
    column: 'a.product_id',
    label: 'Product ID',
    description: 'Only returns of this product.',
    form: { label: 'Item', lookup: { item: 'item', variation: 'variation_id' } },
  },
  variation_id: { type: 'bigint', column: 'a.variation_id', label: 'Variation ID', description: 'Only returns of this product variation.' },
  ...dayRange('return_date', 'pr.returned_at', 'Returned', 'Returned'),
  return_condition: {
    type: 'text',
    column: 'pr.condition',
    label: 'Condition',
    description: 'Only returns in this condition (exact, case-sensitive).',
    form: { lookup: 'values' },
  },
});

export type Filters = ParamValues<typeof params> & Scope;

export function filtered(values: Filters) {
  return applyScope(applyFilters(joined(), params, values), values);
}

/** Returns with their assignment, rider, 3PL, product and variation (every return has each). */
const joined = () =>
  sql('product_returns as pr')
    .join('assignments as a', 'a.id', 'pr.assignment_id')
    .join('riders as r', 'r.id', 'a.rider_id')
    .join('companies as c', 'c.id', 'r.company_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id');

/** The returned assignment's rider, 3PL and item, kept on each return (migration 011). */
const KEPT = { 'a.rider_id': 'pr.rider_id', 'a.product_id': 'pr.product_id', 'a.variation_id': 'pr.variation_id' };

/** The list's rows for paging and counting: the same filters over the returns alone. */
function adminKeys(values: Filters) {
  return keptKeys('product_returns as pr', params, values, 'pr.company_id', KEPT);
}

/**
 * The contract's Product return object, ordered by return date then id: the returns alone, in the order
 * of their date index, with the 3PL and item names looked up from the kept ids (withName: no join), so
 * the first row leaves at once: a full answer streams from its first byte, not after a sort.
 */
export function wire(values: Filters) {
  const builder = adminKeys(values);
  withName(builder, 'c', 'companies', 'pr.company_id');
  withName(builder, 'p', 'products', 'pr.product_id');
  withName(builder, 'v', 'product_variations', 'pr.variation_id');
  return builder.select(jsonColumn(jsonObject(ProductReturn))).orderBy([{ column: 'pr.returned_at' }, { column: 'pr.id' }]);
}

// ---------------------------------------------------------------------------------------------
// Admin pages: the list columns and a sort allow-list over filtered().

/** The list's columns, added to a builder from filtered(). */
export function adminColumns(builder: Knex.QueryBuilder) {
  return builder
    .join('app_users as u', 'u.id', 'pr.returned_by')
    .select(
      'pr.id',
      sql.raw(`${datetime('pr.returned_at')} AS returned_at`),
      'a.rider_id',
      'r.name as rider_name',
      'c.name as company',
      'a.product_id',
      'p.name as product_name',
      'a.variation_id',
      'v.name as variation_name',
      sql.raw(`${datetime('a.assigned_at')} AS assigned_at`),
      'pr.condition',
      'u.name as returned_by',
    );
}

/** Printable reports: the returns of these riders up to the end of `asOf` (all without it), oldest first. */
export function reportRows(riderIds: readonly string[], scope: Scope, asOf?: string) {
  return (
    adminColumns(filtered({ ...scope, return_date_to: asOf }))
      .whereIn('a.rider_id', riderIds)
      // The list again on riders: PostgreSQL carries an equality across the join, not an IN list, and
      // without it read all riders into a hash, a cost growing with the fleet, to join a batch's few.
      .whereIn('r.id', riderIds)
      .orderBy([{ column: 'a.rider_id' }, { column: 'pr.returned_at' }, { column: 'pr.id' }])
  );
}

/** The admin list's source (src/admin/lists.ts): its filters, the builders that read it, its sorts. */
export const adminList = {
  filters: params,
  filtered: filtered,
  keys: adminKeys,
  joined,
  columns: adminColumns,
  /** Sorts the list offers, by their URL name; pr.id breaks ties. Each is an index's order. */
  sorts: {
    returned_at: { keys: [timeKey('pr.returned_at')] },
    rider_id: { keys: [bigintKey('pr.rider_id')] },
    '3pl': byCompany([timeKey('pr.returned_at')], 'pr.company_id'),
    product: byProduct('pr.product_id', [timeKey('pr.returned_at')]),
    return_condition: { keys: [textKey('pr.condition'), timeKey('pr.returned_at')] },
  } satisfies Record<string, ListSort>,
  tieBreak: 'pr.id',
};

import { sql } from '../db/knex';
import { applyScope, type Scope } from '../filters/scope';

// What the admin filter forms offer by name, and the names their chips show for the ids in a URL.
// A supervisor limited to one 3PL is offered only what concerns that 3PL's riders.

/** Every variation with its product and category, in the order the item picker groups them. */
export function items() {
  return sql('product_variations as v')
    .join('products as p', 'p.id', 'v.product_id')
    .join('product_categories as pc', 'pc.id', 'p.category_id')
    .select('p.id as product_id', 'v.id as variation_id', 'p.name as product', 'v.name as variation', 'pc.name as category')
    .orderBy([{ column: 'pc.name' }, { column: 'p.name' }, { column: 'p.id' }, { column: 'v.name' }, { column: 'v.id' }]);
}

/** Patrollers by name; for a scoped supervisor, those who have checked one of the 3PL's riders. */
export function patrollers(scope: Scope = {}) {
  const builder = sql('patrollers as pt')
    .select('pt.id', 'pt.name')
    .orderBy([{ column: 'pt.name' }, { column: 'pt.id' }]);
  if (scope.company_id) {
    builder.whereExists(
      applyScope(
        sql('patrol_checks as pc').join('riders as r', 'r.id', 'pc.rider_id').whereRaw('pc.patroller_id = pt.id').select(sql.raw('1')),
        scope,
      ),
    );
  }
  return builder;
}

/** One patroller's name, for a chip (none when unknown or, for a scoped supervisor, not theirs). */
export function patrollerById(id: string, scope: Scope = {}) {
  return patrollers(scope).where('pt.id', id).clearOrder();
}

export { riderSuggestions } from './rider-equipment';

/** The columns whose values a list form offers as a select (small sets, each with an index led by it). */
export const VALUE_COLUMNS = {
  return_condition: { table: 'product_returns', column: 'condition' },
  exchange_type: { table: 'product_exchanges', column: 'exchange_type' },
} as const;
export type ValueColumn = keyof typeof VALUE_COLUMNS;

/**
 * The distinct values of one of VALUE_COLUMNS, in order, within the scope's 3PL: a loose index scan,
 * one probe of the index per value (the column's own index, or with a 3PL, migration 015's index led by
 * the 3PL), so it costs the same at any size of table.
 */
export function distinctValues(name: ValueColumn, scope: Scope = {}) {
  const { table, column } = VALUE_COLUMNS[name];
  const company = scope.company_id ? 'company_id = ? AND ' : '';
  const bind = scope.company_id ? [scope.company_id] : [];
  return sql.raw(
    `WITH RECURSIVE found(value) AS (
       (SELECT ${column} FROM ${table} WHERE ${company}${column} IS NOT NULL ORDER BY ${column} LIMIT 1)
       UNION ALL
       SELECT (SELECT ${column} FROM ${table} WHERE ${company}${column} > found.value ORDER BY ${column} LIMIT 1)
         FROM found WHERE found.value IS NOT NULL
     )
     SELECT value FROM found WHERE value IS NOT NULL`,
    [...bind, ...bind],
  );
}

import { sql } from '../db/knex';
import { applyScope, type Scope } from '../filters/scope';
import { searchColumns, searchRiders } from './rider-equipment';

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

/** Up to `limit` riders whose name holds `term` or whose id is `term`, for suggestions as one types. */
export function riderSuggestions(term: string, scope: Scope = {}, limit = 20) {
  return searchColumns(searchRiders(term, scope)).limit(limit);
}

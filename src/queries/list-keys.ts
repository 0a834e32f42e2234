import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import type { ParamDef, ParamValues, Params } from '../filters/define';
import { applyScope, type Scope } from '../filters/scope';

// The rows an admin list pages and counts, read from the list's own table alone: the 3PL, rider and
// items of a check, assignment, return or exchange are kept on its row (migration 011), so a filter
// by them is a range of one of that table's indexes instead of a join through riders and assignments.

/** A 3PL's name compared as its id (looked up once, so the condition is an index condition on `company`). */
const companyNamed = (def: ParamDef, company: string): ParamDef => ({
  ...def,
  column: undefined,
  op: undefined,
  where: (builder, name: string) => builder.whereRaw(`${company} = (SELECT c.id FROM companies c WHERE c.name = ?)`, [name]),
});

/**
 * A list's rows for paging and counting: `params` applied to `table` ("patrol_checks as pc") alone,
 * each column of another table replaced by its copy in `kept` (`a.product_id` → `pr.product_id`), the
 * 3PL's name (`c.name`) and the caller's scope compared with the kept `company` column. A filter whose
 * column has no copy on the table is an error here, not a join added back.
 */
export function keptKeys<P extends Params>(
  table: string,
  params: P,
  values: ParamValues<P> & Scope,
  company: string,
  kept: Readonly<Record<string, string>> = {},
) {
  const alias = table.split(' as ')[1];
  const onTable = Object.fromEntries(
    Object.entries(params).map(([name, def]): [string, ParamDef] => {
      if (!def.column) return [name, def];
      if (def.column === 'c.name') return [name, companyNamed(def, company)];
      const column = kept[def.column] ?? def.column;
      if (!column.startsWith(`${alias}.`)) throw new Error(`keptKeys: filter ${name} reads ${def.column}, which ${table} does not keep`);
      return [name, { ...def, column }];
    }),
  ) as unknown as P;
  return applyScope(applyFilters(sql(table), onTable, values), values, company);
}

import type { Knex } from 'knex';
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

/** The few rows whose names a stream's rows carry: 3PLs, products, variations, users (tens, not a fleet). */
export type NamedTable = 'companies' | 'products' | 'product_variations' | 'app_users';

/**
 * `builder` with relation `alias` holding one column, `name`: the name of row `key` of `table`, looked
 * up without a join. The table is read once for the statement (an uncorrelated subquery, which
 * PostgreSQL runs once as an InitPlan) into a JSON object by id, and each row reads its name from it;
 * the LATERAL subquery is flattened into the select list. A full stream then reads one relation, its
 * table's date index, in order: with five joined names PostgreSQL preferred to read every exchange and
 * sort them before the first left (0.8 s at 100,000 riders), where this reads the index alone and
 * sorts nothing, in less time in all (0.86 against 0.97 s for COPY of the statement).
 */
export function withName(builder: Knex.QueryBuilder, alias: string, table: NamedTable, key: string) {
  return builder.joinRaw(
    `CROSS JOIN LATERAL (SELECT (SELECT jsonb_object_agg(id, name) FROM ${table}) ->> (${key})::text AS name) AS ${alias}`,
  );
}
